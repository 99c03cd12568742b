// Parquet's value and level encodings: the RLE/bit-packed hybrid, DELTA_BINARY_PACKED and the
// two DELTA byte-array encodings. Every decoder checks its bounds and throws
// std::runtime_error on corrupt input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember::parquet {

/// Decodes `n` values of the RLE/bit-packed hybrid (no length prefix) of `bit_width` bits
/// from [data, data + size) into `out`.
void decode_rle(const uint8_t* data, size_t size, int bit_width, int64_t n, uint32_t* out);

/// Decodes DELTA_BINARY_PACKED integers from [*p, end), appending them to `out` (at most
/// `max_values`); advances *p past the block.
void decode_delta_binary_packed(const uint8_t** p, const uint8_t* end, int64_t max_values,
                                std::vector<int64_t>* out);

/// Bytes appended into a 64-byte aligned Buffer (doubling when full), which the column made
/// of them shares instead of copying.
class ByteStore {
 public:
  const char* data() const { return buf_ ? reinterpret_cast<const char*>(buf_->data()) : ""; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// Room for `n` bytes in all.
  void reserve(size_t n);
  void append(const char* p, size_t n) {
    char* to = grow(n);
    if (n) std::memcpy(to, p, n);
  }
  /// `n` more bytes, uninitialised, for the caller to write: where they start.
  char* grow(size_t n) {
    if (size_ + n > cap_) reserve(std::max(size_ + n, cap_ * 2));
    if (!buf_) reserve(64);
    char* at = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*buf_)) + size_;
    size_ += n;
    return at;
  }
  /// Drops the last `n` bytes (a page decompressed in place whose levels came first).
  void shrink_by(size_t n) { size_ -= std::min(n, size_); }
  /// The buffer (at least size() bytes; a copy when most of it is unused); nothing may be
  /// appended after it is shared.
  std::shared_ptr<Buffer> share() const;

 private:
  std::shared_ptr<Buffer> buf_;
  size_t size_ = 0, cap_ = 0;
};

/// Byte arrays as offsets (n + 1) into bytes: what the byte-array decoders produce.
struct ByteArrays {
  std::vector<int32_t> offsets{0};
  ByteStore bytes;
  int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
  void add(const char* p, size_t n) {
    bytes.append(p, n);
    if (bytes.size() > 0x7fffffffu) throw std::runtime_error("byte arrays past 2 GiB in one page");
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
};

/// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, appending `n` values.
void decode_delta_length_byte_array(const uint8_t* p, const uint8_t* end, int64_t n,
                                    ByteArrays* out);
void decode_delta_byte_array(const uint8_t* p, const uint8_t* end, int64_t n, ByteArrays* out);

/// Encodes `values` (each < 2^bit_width) as the RLE/bit-packed hybrid: runs of repeats as RLE,
/// the rest bit-packed in groups of 8.
void encode_rle(const std::vector<uint32_t>& values, int bit_width, std::string* out);

}  // namespace ember::parquet
