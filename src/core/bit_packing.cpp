// Bitmap packing: a multiply gathers eight bytes into a byte portably; AVX-512BW tests 64
// bytes at once where the CPU has it.
#include "core/bit_packing.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstring>

namespace ember::bitmap {

void unpack(const uint8_t* bits, int64_t start, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = (bits[(start + i) >> 3] >> ((start + i) & 7)) & 1;
}

namespace {

// Byte j (0 or 1) of x moves to bit 56 + j of x * kGather, and the sum of the bytes to the top
// byte of x * kSum; no partial products overlap in either.
int64_t pack_words(const uint8_t* bytes, uint8_t* out, int64_t n) {
  constexpr uint64_t kGather = 0x0102040810204080ull;
  constexpr uint64_t kSum = 0x0101010101010101ull;
  int64_t ones = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, bytes + i, 8);
    out[i >> 3] = static_cast<uint8_t>((x * kGather) >> 56);
    ones += static_cast<int64_t>((x * kSum) >> 56);
  }
  if (i < n) {
    uint8_t last = 0;
    for (int64_t j = 0; i + j < n; ++j) {
      last |= uint8_t(bytes[i + j] << j);
      ones += bytes[i + j];
    }
    out[i >> 3] = last;
  }
  return ones;
}

#if defined(__x86_64__)
// 64 bytes to 64 bits in one vptestmb.
__attribute__((target("avx512f,avx512bw,popcnt"))) int64_t pack_avx512(const uint8_t* bytes,
                                                                       uint8_t* out, int64_t n) {
  int64_t ones = 0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(bytes + i);
    const uint64_t bits = _mm512_test_epi8_mask(v, v);
    std::memcpy(out + i / 8, &bits, 8);
    ones += static_cast<int64_t>(_mm_popcnt_u64(bits));
  }
  return ones + pack_words(bytes + i, out + i / 8, n - i);
}

bool has_avx512bw() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

}  // namespace

int64_t pack(const uint8_t* bytes, uint8_t* out, int64_t n) {
#if defined(__x86_64__)
  if (has_avx512bw()) return pack_avx512(bytes, out, n);
#endif
  return pack_words(bytes, out, n);
}

}  // namespace ember::bitmap
