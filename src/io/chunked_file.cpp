// Buffered sequential reads with pread(2) or from a stream; see chunked_file.h.
#include "io/chunked_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "ember/error.h"
#include "io/file_range.h"
#include "io/stream_input.h"

namespace ember {

ChunkedFile::ChunkedFile(const FileSplit& split, LineBreaks breaks, size_t chunk_bytes)
    : path_(split.path), stream_(split.stream), breaks_(breaks) {
  int64_t left = static_cast<int64_t>(chunk_bytes);
  if (!stream_) {
    file_ = open_byte_source(path_, split.storage, split.file_size);
    // A small file (or the tail of one) does not need the whole chunk: many small files are
    // common.
    left = std::max<int64_t>(0, file_->size() - split.begin) + 1;
    if (file_->remote()) {
      chunk_bytes = std::max(chunk_bytes, kRemoteChunkBytes);
      // Every byte asked for is transferred: a split's first read stops a little after its
      // end (the last record may run past it; refill asks for more then).
      if (split.end >= 0) left = std::min(left, split.end - split.begin + kRemoteSplitSlack);
      ahead_ = std::make_unique<ReadAhead>(
          *file_, chunk_bytes, split.end >= 0 ? split.end + kRemoteSplitSlack : file_->size());
    } else {
      // The kernel's readahead doubles for a sequential hint.
      static_cast<const ReadOnlyFile&>(*file_).hint_sequential();
    }
  }
  capacity_ = std::clamp<size_t>(static_cast<size_t>(left), kMinChunkBytes,
                                 std::max(chunk_bytes, kMinChunkBytes));
  // Only the padding is cleared: the rest is always written by a read before it is looked at.
  buf_ = allocate_window(capacity_ + kPaddingBytes);
  std::memset(buf_.get() + capacity_, 0, kPaddingBytes);
  end_ = buf_.get();
  *end_ = '\n';  // the sentinel (see the header)
  window_offset_ = split.begin;
  read_offset_ = split.begin;
}

ChunkedFile::Window ChunkedFile::allocate_window(size_t bytes) {
  char* p = static_cast<char*>(BufferCache::instance().acquire(bytes));
#if defined(__SANITIZE_ADDRESS__)
  // The cache rounds blocks up; AddressSanitizer still catches a parser reading past the
  // padding. The cache unpoisons the whole block when it hands it out again.
  ASAN_POISON_MEMORY_REGION(p + bytes, BufferCache::capacity_for(bytes) - bytes);
#endif
  return Window(p, CacheRelease{bytes});
}

ChunkedFile::~ChunkedFile() = default;

int64_t ChunkedFile::line_number_at(int64_t offset) const {
  if (!stream_) return ember::line_number_at(*file_, offset, breaks_);
  // A stream cannot be read again: its lines were counted as they left the window. Errors are
  // raised for the record being read, which is still in the window.
  const char* const p = buf_.get() + std::max<int64_t>(0, offset - window_offset_);
  return 1 + lines_before_window_ +
         count_line_breaks(buf_.get(), std::min<const char*>(p, end_), byte_before_window_,
                           breaks_);
}

void ChunkedFile::skip_byte_order_mark(char*& pos) {
  static constexpr char kMark[] = "\xEF\xBB\xBF";
  while (end_ - pos < 3 && refill(pos)) {
  }
  if (end_ - pos >= 3 && std::memcmp(pos, kMark, 3) == 0) pos += 3;
}

bool ChunkedFile::refill(char*& keep) {
  const size_t kept = static_cast<size_t>(end_ - keep);
  drop_before(keep);
  if (kept == capacity_) {
    // One record fills the whole buffer: grow it rather than fail, up to the limit.
    if (capacity_ >= kMaxRecordBytes) fail_record_too_long();
    const size_t grown = std::min(capacity_ * 2, kMaxRecordBytes);
    Window bigger = allocate_window(grown + kPaddingBytes);
    std::memcpy(bigger.get(), keep, kept);
    std::memset(bigger.get() + grown, 0, kPaddingBytes);
    buf_ = std::move(bigger);
    capacity_ = grown;
  } else if (kept > 0 && keep != buf_.get()) {
    std::memmove(buf_.get(), keep, kept);
  }
  keep = buf_.get();
  end_ = buf_.get() + kept;
  *end_ = '\n';
  if (eof_) return false;
  const size_t n = read_at(end_, capacity_ - kept, read_offset_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  *end_ = '\n';
  read_offset_ += static_cast<int64_t>(n);
  return true;
}

size_t ChunkedFile::read_at(char* out, size_t size, int64_t offset) {
  if (stream_) return stream_->read_at(out, size, offset);
  if (ahead_) return ahead_->read_at(out, size, offset);
  return file_->read_at(out, size, offset);
}

void ChunkedFile::drop_before(const char* keep) {
  if (stream_) {
    lines_before_window_ += count_line_breaks(buf_.get(), keep, byte_before_window_, breaks_);
    if (keep > buf_.get()) byte_before_window_ = keep[-1];
  }
  window_offset_ += keep - buf_.get();
}

void ChunkedFile::fail_record_too_long() const {
  throw ParseError::at(
      path_, line_number_at(window_offset_), 1,
      "a record longer than " + std::to_string(kMaxRecordBytes >> 20) +
          " MiB starts here, more than a reader holds in memory: a quote that never closes, or "
          "input that is not line-based text (a device such as /dev/zero never ends a line), "
          "makes the rest of the input one record");
}

}  // namespace ember
