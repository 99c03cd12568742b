// Keeping the 8-byte values whose bit is set in a bitmap: what a filter does to an int64 or
// float64 column (float64 moves as its bits).
#pragma once

#include <cstdint>

namespace ember {

/// Writes values[i] for every set bit `start + i` (i < n) of `bits`, in order, to `out` and
/// returns how many; nothing is written past them.
int64_t compress_fixed_width(const int64_t* values, const uint8_t* bits, int64_t start, int64_t n,
                             int64_t* out);

}  // namespace ember
