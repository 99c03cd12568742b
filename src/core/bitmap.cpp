// Word-at-a-time bitmap operations used across columns and kernels.
#include "core/bitmap.h"

#include "core/buffer_access.h"

namespace ember::bitmap {

int64_t count_set(const uint8_t* bits, int64_t start, int64_t length) {
  int64_t n = 0;
  const int64_t words = words_for(length);
  for (int64_t w = 0; w < words; ++w) n += std::popcount(read_word(bits, start, length, w));
  return n;
}

namespace {
// ORs the low `nbits` bits of `word` into dst at bit `pos`.
inline void or_word(uint8_t* dst, int64_t pos, uint64_t word, int64_t nbits) {
  uint8_t* p = dst + (pos >> 3);
  const int shift = static_cast<int>(pos & 7);
  const int64_t nbytes = bytes_for(shift + nbits);
  const uint64_t lo = word << shift;
  const uint8_t hi = shift ? static_cast<uint8_t>(word >> (64 - shift)) : 0;
  for (int64_t i = 0; i < nbytes && i < 8; ++i) p[i] |= static_cast<uint8_t>(lo >> (8 * i));
  if (nbytes > 8) p[8] |= hi;
}
}  // namespace

void copy_into(const uint8_t* src, int64_t src_start, uint8_t* dst, int64_t dst_start,
               int64_t length) {
  if (length <= 0) return;
  if ((src_start & 7) == 0 && (dst_start & 7) == 0) {
    // Byte-aligned: bulk copy whole bytes, then the partial last byte.
    const int64_t whole = length >> 3;
    std::memcpy(dst + (dst_start >> 3), src + (src_start >> 3), static_cast<size_t>(whole));
    const int64_t rest = length & 7;
    if (rest) {
      const uint8_t last = src[(src_start >> 3) + whole] & static_cast<uint8_t>((1u << rest) - 1);
      dst[(dst_start >> 3) + whole] |= last;
    }
    return;
  }
  const int64_t words = words_for(length);
  for (int64_t w = 0; w < words; ++w) {
    const int64_t nbits = std::min<int64_t>(64, length - 64 * w);
    or_word(dst, dst_start + 64 * w, read_word(src, src_start, length, w), nbits);
  }
}

void set_range(uint8_t* dst, int64_t start, int64_t length) {
  int64_t i = start;
  const int64_t end = start + length;
  for (; i < end && (i & 7); ++i) set_bit(dst, i);
  const int64_t whole = (end - i) >> 3;
  if (whole > 0) {
    std::memset(dst + (i >> 3), 0xff, static_cast<size_t>(whole));
    i += whole * 8;
  }
  for (; i < end; ++i) set_bit(dst, i);
}

std::shared_ptr<Buffer> copy(const uint8_t* src, int64_t start, int64_t length) {
  auto out = detail::BufferAccess::allocate_uninitialized(bytes_for(length));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  // Whole-word stores (bits past the end read as 0) overwrite every byte, so no zero-fill first;
  // buffers are padded to 64 bytes, so the last word stays inside the allocation.
  const int64_t words = words_for(length);
  for (int64_t w = 0; w < words; ++w) {
    const uint64_t v = read_word(src, start, length, w);
    std::memcpy(d + 8 * w, &v, 8);
  }
  return out;
}

std::shared_ptr<Buffer> and_of(const uint8_t* a, int64_t a_start, const uint8_t* b, int64_t b_start,
                               int64_t length) {
  if (a == nullptr && b == nullptr) return nullptr;
  if (a == nullptr) return copy(b, b_start, length);
  if (b == nullptr) return copy(a, a_start, length);
  auto out = detail::BufferAccess::allocate_uninitialized(bytes_for(length));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  const int64_t words = words_for(length);
  for (int64_t w = 0; w < words; ++w) {
    const uint64_t v = read_word(a, a_start, length, w) & read_word(b, b_start, length, w);
    // Buffers are padded to 64 bytes, so a whole-word store never leaves the allocation.
    std::memcpy(d + 8 * w, &v, 8);
  }
  return out;
}

}  // namespace ember::bitmap
