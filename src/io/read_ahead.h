// Sequential reads of a remote file with the next request already in flight, so that parsing
// one chunk overlaps the round trip and transfer of the next.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <string>

#include "io/byte_source.h"

namespace ember {

/// Reads `file` front to back for one reader, in requests of `chunk` bytes: while the reader
/// parses the bytes of one request, the next is in flight, up to `stop_at` (the end of the
/// reader's range, or of the file; a reader that needs bytes past it reads them directly). A
/// read at another offset than the one ahead drops what was asked ahead. Holds at most two
/// chunks besides the reader's buffer. Not thread-safe; the reader owns it. Destroying it waits
/// for a request still in flight.
class ReadAhead {
 public:
  ReadAhead(const ByteSource& file, size_t chunk, int64_t stop_at)
      : file_(file), chunk_(chunk), stop_at_(stop_at) {}
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  /// As ByteSource::read_at (it may return fewer bytes than asked before the end of the
  /// file). Throws the IoError of a failed request, ahead or not.
  size_t read_at(char* out, size_t size, int64_t offset);

 private:
  void ask_ahead(int64_t offset);
  void drop_pending() noexcept;

  const ByteSource& file_;
  size_t chunk_;
  int64_t stop_at_;
  std::optional<std::future<std::string>> pending_;  ///< the bytes at pending_offset_
  int64_t pending_offset_ = -1;
  std::string buffered_;  ///< bytes [buffered_offset_ + used_, ...) not handed out yet
  int64_t buffered_offset_ = -1;
  size_t used_ = 0;
};

}  // namespace ember
