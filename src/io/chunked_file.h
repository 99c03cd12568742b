// Sequential reading of a file through one fixed-size, growable buffer (bounded memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ember {

/// A window of a file's bytes held in one buffer that is refilled in place. The buffer starts at
/// `chunk_bytes` and only grows when a single record (the bytes a caller asks to keep) fills it.
/// `kPaddingBytes` readable bytes always follow the buffer's capacity, so SIMD parsers (simdjson)
/// may read past the end of the data, and a '\n' sentinel always sits at end(), so a scan for a
/// line end needs no bounds check in its inner loop. Not thread-safe; one reader owns it.
class ChunkedFile {
 public:
  static constexpr size_t kDefaultChunkBytes = size_t{2} << 20;
  static constexpr size_t kMinChunkBytes = 4096;
  static constexpr size_t kPaddingBytes = 64;

  /// Opens `path` and positions the (still empty) window at byte `begin`. Throws IoError.
  ChunkedFile(std::string path, int64_t begin, size_t chunk_bytes = kDefaultChunkBytes);
  ~ChunkedFile();
  ChunkedFile(const ChunkedFile&) = delete;
  ChunkedFile& operator=(const ChunkedFile&) = delete;

  const std::string& path() const { return path_; }
  /// First byte of the window.
  char* begin() { return buf_.get(); }
  /// One past the last byte of the window.
  char* end() { return end_; }
  /// True once a read found the end of the file.
  bool at_eof() const { return eof_; }
  /// Absolute file offset of a pointer into the window.
  int64_t offset_of(const char* p) const { return window_offset_ + (p - buf_.get()); }

  /// At the start of a file: moves `pos` (the window's first byte) past a UTF-8 byte-order mark,
  /// which some editors write before the text and which is no part of it. Reads as needed.
  void skip_byte_order_mark(char*& pos);

  /// Drops the bytes before `keep` (which points into the window; it is updated to the same byte
  /// at its new place) and reads more after the kept bytes, growing the buffer when the kept
  /// bytes fill it. Returns false when nothing more could be read (end of file). Throws IoError.
  bool refill(char*& keep);

 private:
  std::string path_;
  int fd_ = -1;
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;
  char* end_ = nullptr;
  int64_t window_offset_ = 0;  ///< file offset of buf_[0]
  int64_t read_offset_ = 0;    ///< file offset of the next byte to read
  bool eof_ = false;
};

}  // namespace ember
