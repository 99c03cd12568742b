// The CSV tokeniser's data-parallel step: which bytes of a 64-byte block are delimiters, line
// feeds, carriage returns or quotes, as one bitmask each, so that field boundaries are found with
// bit operations.
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ember {

/// Bit i of each mask describes byte i of a 64-byte block.
struct CsvBlockMasks {
  uint64_t delimiter = 0;
  uint64_t newline = 0;          ///< '\n'
  uint64_t carriage_return = 0;  ///< '\r'
  uint64_t quote = 0;
  bool non_ascii = false;  ///< some byte of the block has its high bit set
};

/// Classifies the 64 bytes at `p`, which must all be readable. SSE2 is part of x86-64, so the
/// vector path needs no runtime dispatch; other targets take the byte loop.
inline CsvBlockMasks classify_csv_block(const char* p, char delimiter) {
  CsvBlockMasks m;
#if defined(__SSE2__)
  const __m128i delim = _mm_set1_epi8(delimiter);
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i carriage_return = _mm_set1_epi8('\r');
  const __m128i quote = _mm_set1_epi8('"');
  __m128i any = _mm_setzero_si128();
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    // movemask yields 16 bits in a non-negative int: widening it cannot smear a sign.
    auto bits = [&](__m128i c) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))))
             << (16 * i);
    };
    m.delimiter |= bits(delim);
    m.newline |= bits(newline);
    m.carriage_return |= bits(carriage_return);
    m.quote |= bits(quote);
    any = _mm_or_si128(any, v);
  }
  m.non_ascii = _mm_movemask_epi8(any) != 0;
#else
  unsigned char any = 0;
  for (int i = 0; i < 64; ++i) {
    const char c = p[i];
    const uint64_t bit = uint64_t{1} << i;
    if (c == delimiter) m.delimiter |= bit;
    if (c == '\n') m.newline |= bit;
    if (c == '\r') m.carriage_return |= bit;
    if (c == '"') m.quote |= bit;
    any |= static_cast<unsigned char>(c);
  }
  m.non_ascii = (any & 0x80) != 0;
#endif
  return m;
}

}  // namespace ember
