// fill_sequence, vectorised for the CPU's instruction-set level.
#include "core/sequence.h"

#include "core/simd_clones.h"

namespace ember {

namespace {
EMBER_SIMD_CLONES
void fill_sequence_clones(int64_t first, int64_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = first + i;
}
}  // namespace

void fill_sequence(int64_t first, int64_t* out, int64_t n) { fill_sequence_clones(first, out, n); }

}  // namespace ember
