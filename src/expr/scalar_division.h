// Integer division and remainder of an int64 column by one scalar divisor, with the hardware
// division replaced by a multiply-and-shift precomputed once per kernel call (libdivide).
#pragma once

#include <cstdint>
#include <memory>

#include "ember/column.h"

namespace ember {

/// Values of `x[i] / d` (or `x[i] % d` when `remainder`) for i in [0, n), truncating toward
/// zero like C++. `d` must be non-zero (a zero divisor is null, handled by the caller). d == -1
/// gives the wrapped negation (INT64_MIN / -1 == INT64_MIN) and remainder 0, matching the
/// column-by-column kernel.
std::shared_ptr<Buffer> divide_by_scalar(const int64_t* x, int64_t d, int64_t n, bool remainder);

}  // namespace ember
