// Integer division and remainder by one scalar divisor, with the hardware division replaced by
// a multiply-and-shift precomputed once per call (libdivide). The one kernel for it: the
// node-by-node evaluator runs it over a whole column, compiled programs over each chunk.
#pragma once

#include <cstdint>

namespace ember {

/// out[i] = x[i] / d (or x[i] % d when `remainder`) for i in [0, n), truncating toward zero
/// like C++. `d` must be non-zero (a zero divisor is null, handled by the caller). d == -1
/// gives the negation and remainder 0; returns true if some quotient left int64
/// (INT64_MIN / -1, written wrapped), a row the caller makes null.
bool divide_by_scalar(const int64_t* x, int64_t d, bool remainder, int64_t* out, int64_t n);

}  // namespace ember
