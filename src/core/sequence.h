// Consecutive integers written straight into a buffer (the ids of range()).
#pragma once

#include <cstdint>

namespace ember {

/// out[i] = first + i for i in [0, n).
void fill_sequence(int64_t first, int64_t* out, int64_t n);

}  // namespace ember
