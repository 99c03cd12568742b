// int64 arithmetic as the engine defines it: wrapping on overflow (signed overflow is undefined
// behaviour in C++, unsigned wraps), and total division whose zero-divisor rows become null.
#pragma once

#include <cstdint>

namespace ember {

inline int64_t wrap_add(int64_t x, int64_t y) { return int64_t(uint64_t(x) + uint64_t(y)); }
inline int64_t wrap_sub(int64_t x, int64_t y) { return int64_t(uint64_t(x) - uint64_t(y)); }
inline int64_t wrap_mul(int64_t x, int64_t y) { return int64_t(uint64_t(x) * uint64_t(y)); }
/// A zero divisor yields a placeholder 0 (the caller makes the row null); -1 avoids the one
/// overflowing quotient.
inline int64_t safe_div(int64_t x, int64_t y) {
  return y == 0 ? 0 : (y == -1 ? wrap_sub(0, x) : x / y);
}
inline int64_t safe_mod(int64_t x, int64_t y) { return (y == 0 || y == -1) ? 0 : x % y; }

}  // namespace ember
