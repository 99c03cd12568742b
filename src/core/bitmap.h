// Word-at-a-time operations on Arrow bitmaps (LSB first) at arbitrary bit offsets: the building
// blocks of validity handling in columns, concatenation, filtering and expression kernels.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>

#include "ember/column.h"

namespace ember {

/// Bit i of an Arrow bitmap (LSB first): read, set, clear.
inline bool get_bit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void set_bit(uint8_t* bits, int64_t i) { bits[i >> 3] |= uint8_t(1u << (i & 7)); }
inline void clear_bit(uint8_t* bits, int64_t i) { bits[i >> 3] &= uint8_t(~(1u << (i & 7))); }

}  // namespace ember

namespace ember::bitmap {

/// Bytes needed to hold `bits` bits.
inline int64_t bytes_for(int64_t bits) { return (bits + 7) >> 3; }

/// The 64 bits [start + 64*w, start + 64*w + 64) of a bitmap holding `length` bits from `start`;
/// bits past the end read as 0. Never touches a byte outside the bitmap's extent.
inline uint64_t read_word(const uint8_t* bits, int64_t start, int64_t length, int64_t w) {
  const int64_t pos = start + 64 * w;
  const int64_t nbits = std::min<int64_t>(64, length - 64 * w);
  const uint8_t* p = bits + (pos >> 3);
  const int shift = static_cast<int>(pos & 7);
  const int64_t nbytes = bytes_for(shift + nbits);
  uint64_t lo = 0;
  uint8_t hi = 0;
  if (nbytes > 8) {
    std::memcpy(&lo, p, 8);
    hi = p[8];
  } else {
    std::memcpy(&lo, p, static_cast<size_t>(nbytes));
  }
  uint64_t word = shift ? (lo >> shift) | (uint64_t(hi) << (64 - shift)) : lo;
  if (nbits < 64) word &= (uint64_t(1) << nbits) - 1;
  return word;
}

/// Number of 64-bit words covering `length` bits.
inline int64_t words_for(int64_t length) { return (length + 63) >> 6; }

/// Count of set bits among `length` bits from `start`.
int64_t count_set(const uint8_t* bits, int64_t start, int64_t length);

/// ORs `length` bits of `src` (from `src_start`) into `dst` (from `dst_start`). `dst` must be
/// zero in that range (freshly allocated buffers are).
void copy_into(const uint8_t* src, int64_t src_start, uint8_t* dst, int64_t dst_start,
               int64_t length);

/// Sets bits [start, start+length) of `dst`.
void set_range(uint8_t* dst, int64_t start, int64_t length);

/// A fresh bitmap of `length` bits copied from `src` at `start` (realigned to offset 0).
std::shared_ptr<Buffer> copy(const uint8_t* src, int64_t start, int64_t length);

/// a AND b over `length` bits into a fresh bitmap at offset 0; a null input means all ones.
/// Returns nullptr when both inputs are null (every slot valid).
std::shared_ptr<Buffer> and_of(const uint8_t* a, int64_t a_start, const uint8_t* b, int64_t b_start,
                               int64_t length);

}  // namespace ember::bitmap
