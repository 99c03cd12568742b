// int64 arithmetic as the engine defines it: a result that does not fit in int64 is null, never
// wrapped silently (signed overflow is undefined behaviour in C++, so the kernels compute the
// wrapped value with unsigned arithmetic and then null the rows that overflowed); division is
// total, and its zero-divisor rows become null.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ember {

inline int64_t wrap_add(int64_t x, int64_t y) { return int64_t(uint64_t(x) + uint64_t(y)); }
inline int64_t wrap_sub(int64_t x, int64_t y) { return int64_t(uint64_t(x) - uint64_t(y)); }
inline int64_t wrap_mul(int64_t x, int64_t y) { return int64_t(uint64_t(x) * uint64_t(y)); }
/// A zero divisor yields a placeholder 0 (the caller makes the row null); -1 avoids the one
/// overflowing quotient (INT64_MIN / -1, whose row the caller makes null too).
inline int64_t safe_div(int64_t x, int64_t y) {
  return y == 0 ? 0 : (y == -1 ? wrap_sub(0, x) : x / y);
}
inline int64_t safe_mod(int64_t x, int64_t y) { return (y == 0 || y == -1) ? 0 : x % y; }

/// Whether x + y left int64, given r = wrap_add(x, y): both operands differ in sign from r.
inline bool add_overflowed(int64_t x, int64_t y, int64_t r) { return ((x ^ r) & (y ^ r)) < 0; }
/// Whether x - y left int64, given r = wrap_sub(x, y).
inline bool sub_overflowed(int64_t x, int64_t y, int64_t r) { return ((x ^ y) & (x ^ r)) < 0; }
/// Whether x * y leaves int64.
inline bool mul_overflows(int64_t x, int64_t y) {
  int64_t r;
  return __builtin_mul_overflow(x, y, &r);
}
/// Whether x / y leaves int64: only INT64_MIN / -1.
inline bool div_overflows(int64_t x, int64_t y) {
  return x == std::numeric_limits<int64_t>::min() && y == -1;
}
/// Whether -x leaves int64: only INT64_MIN.
inline bool negate_overflows(int64_t x) { return x == std::numeric_limits<int64_t>::min(); }

/// The values x of `x * scale + offset` for which neither step leaves int64: [lo, hi].
struct AffineRange {
  int64_t lo = std::numeric_limits<int64_t>::min();  ///< smallest x that fits
  int64_t hi = std::numeric_limits<int64_t>::max();  ///< largest x that fits
  /// The range for this scale and offset (x = 0 always fits: the result is `offset`).
  static AffineRange of(int64_t scale, int64_t offset) {
    using I = __int128;
    const I lo_p = std::max<I>(std::numeric_limits<int64_t>::min(),
                               I(std::numeric_limits<int64_t>::min()) - offset);
    const I hi_p = std::min<I>(std::numeric_limits<int64_t>::max(),
                               I(std::numeric_limits<int64_t>::max()) - offset);
    AffineRange r;
    if (scale > 0) {
      r.lo = int64_t(ceil_div(lo_p, scale));
      r.hi = int64_t(floor_div(hi_p, scale));
    } else if (scale < 0) {
      r.lo = int64_t(ceil_div(hi_p, scale));
      r.hi = int64_t(floor_div(lo_p, scale));
    }
    return r;
  }

 private:
  static __int128 floor_div(__int128 a, __int128 b) {
    const __int128 q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
  static __int128 ceil_div(__int128 a, __int128 b) {
    const __int128 q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
  }
};

}  // namespace ember
