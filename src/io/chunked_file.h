// Sequential reading of a file through one fixed-size, growable buffer (bounded memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/buffer_cache.h"
#include "io/byte_source.h"
#include "io/file_split.h"
#include "io/line_number.h"
#include "io/read_ahead.h"

namespace ember {

/// A window of a file's bytes held in one buffer that is refilled in place. The buffer starts at
/// `chunk_bytes` and only grows when a single record (the bytes a caller asks to keep) fills it,
/// up to kMaxRecordBytes. `kPaddingBytes` readable bytes always follow the buffer's capacity, so
/// SIMD parsers (simdjson) may read past the end of the data, and a '\n' sentinel always sits at
/// end(), so a scan for a line end needs no bounds check in its inner loop. Reads a regular file
/// with pread(2), a remote one with ranged GETs of kRemoteChunkBytes, the next one in flight
/// while the current one is parsed (ReadAhead), or a split's StreamInput (a pipe or device). Not
/// thread-safe; one reader owns it.
class ChunkedFile {
 public:
  static constexpr size_t kDefaultChunkBytes = size_t{2} << 20;
  /// The window of a remote file: large ranged reads keep the round trips few.
  static constexpr size_t kRemoteChunkBytes = size_t{16} << 20;
  /// What a remote split's first read takes past the split's end, for its last record.
  static constexpr int64_t kRemoteSplitSlack = int64_t{64} << 10;
  static constexpr size_t kMinChunkBytes = 4096;
  static constexpr size_t kPaddingBytes = 64;
  /// The longest record (a CSV record, a JSON line) a reader holds. A longer one is a
  /// ParseError rather than a buffer that grows without bound: a quote that never closes, or
  /// input that never ends a line (a device such as /dev/zero), would otherwise take all memory.
  static constexpr size_t kMaxRecordBytes = size_t{64} << 20;

  /// Opens the split's file (or takes its stream) and positions the (still empty) window at the
  /// split's first byte. `breaks` says what ends a line, for line numbers. Throws IoError.
  ChunkedFile(const FileSplit& split, LineBreaks breaks, size_t chunk_bytes = kDefaultChunkBytes);
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
  /// The 1-based line holding byte `offset`, which must not lie before the window. For error
  /// messages: a regular file is read again from its start; a stream's lines are counted as
  /// its bytes leave the window.
  int64_t line_number_at(int64_t offset) const;

  /// At the start of a file: moves `pos` (the window's first byte) past a UTF-8 byte-order mark,
  /// which some editors write before the text and which is no part of it. Reads as needed.
  void skip_byte_order_mark(char*& pos);

  /// Drops the bytes before `keep` (which points into the window; it is updated to the same byte
  /// at its new place) and reads more after the kept bytes, growing the buffer when the kept
  /// bytes fill it. Returns false when nothing more could be read (end of file). Throws IoError,
  /// or ParseError when the kept bytes reach kMaxRecordBytes.
  bool refill(char*& keep);

 private:
  /// Hands the window's memory back to the BufferCache it came from.
  struct CacheRelease {
    size_t bytes;  // no initializer: unique_ptr needs this default-constructible in the class
    void operator()(char* p) const { BufferCache::instance().release(p, bytes); }
  };
  /// The window's memory comes from the process's BufferCache: the reader of the next split
  /// gets pages that are already mapped instead of faulting in fresh ones for every split.
  using Window = std::unique_ptr<char[], CacheRelease>;
  static Window allocate_window(size_t bytes);

  size_t read_at(char* out, size_t size, int64_t offset);
  void drop_before(const char* keep);
  [[noreturn]] void fail_record_too_long() const;

  std::string path_;
  std::shared_ptr<StreamInput> stream_;  ///< set for a pipe or device; else file_ is the file
  std::unique_ptr<ByteSource> file_;
  std::unique_ptr<ReadAhead> ahead_;  ///< a remote file: the next chunk is already asked for
  LineBreaks breaks_;
  Window buf_;
  size_t capacity_ = 0;
  char* end_ = nullptr;
  int64_t window_offset_ = 0;  ///< file offset of buf_[0]
  int64_t read_offset_ = 0;    ///< file offset of the next byte to read
  bool eof_ = false;
  int64_t lines_before_window_ = 0;  ///< streams only: line breaks before buf_[0]
  char byte_before_window_ = 0;      ///< streams only: the byte before buf_[0]
};

}  // namespace ember
