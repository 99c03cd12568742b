// compress_fixed_width: one step per kept row, a 64-row word of the bitmap at a time, and one
// copy for a word that keeps every row. (AVX-512 vpcompressq measured slower than this at the
// selectivities filters usually have.)
#include "core/fixed_width_compress.h"

#include <bit>
#include <cstring>

#include "core/bitmap.h"

namespace ember {

int64_t compress_fixed_width(const int64_t* values, const uint8_t* bits, int64_t start, int64_t n,
                             int64_t* out) {
  int64_t k = 0;
  const int64_t words = bitmap::words_for(n);
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word = bitmap::read_word(bits, start, n, w);
    const int64_t base = w * 64;
    if (word == ~uint64_t(0)) {
      std::memcpy(out + k, values + base, 64 * sizeof(int64_t));
      k += 64;
      continue;
    }
    while (word) {
      out[k++] = values[base + std::countr_zero(word)];
      word &= word - 1;
    }
  }
  return k;
}

}  // namespace ember
