// Buffered sequential reads with pread(2); see chunked_file.h.
#include "io/chunked_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember {

ChunkedFile::ChunkedFile(std::string path, int64_t begin, size_t chunk_bytes)
    : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError("cannot open '" + path_ + "': " + std::strerror(errno));
  // A small file (or the tail of one) does not need the whole chunk: many small files are common.
  struct stat st{};
  const int64_t left = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)
                           ? std::max<int64_t>(0, int64_t(st.st_size) - begin) + 1
                           : int64_t(chunk_bytes);
  capacity_ = std::clamp<size_t>(static_cast<size_t>(left), kMinChunkBytes,
                                 std::max(chunk_bytes, kMinChunkBytes));
  // The kernel's readahead doubles for a sequential hint; failure to advise is harmless.
  (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  // Only the padding is cleared: the rest is always written by a read before it is looked at.
  buf_ = std::make_unique_for_overwrite<char[]>(capacity_ + kPaddingBytes);
  std::memset(buf_.get() + capacity_, 0, kPaddingBytes);
  end_ = buf_.get();
  *end_ = '\n';  // the sentinel (see the header)
  window_offset_ = begin;
  read_offset_ = begin;
}

ChunkedFile::~ChunkedFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ChunkedFile::skip_byte_order_mark(char*& pos) {
  static constexpr char kMark[] = "\xEF\xBB\xBF";
  while (end_ - pos < 3 && refill(pos)) {
  }
  if (end_ - pos >= 3 && std::memcmp(pos, kMark, 3) == 0) pos += 3;
}

bool ChunkedFile::refill(char*& keep) {
  const size_t kept = static_cast<size_t>(end_ - keep);
  window_offset_ += keep - buf_.get();
  if (kept == capacity_) {
    // One record fills the whole buffer: grow it rather than fail (the only unbounded case).
    const size_t grown = capacity_ * 2;
    auto bigger = std::make_unique_for_overwrite<char[]>(grown + kPaddingBytes);
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
  ssize_t n;
  do {
    n = ::pread(fd_, end_, capacity_ - kept, read_offset_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  *end_ = '\n';
  read_offset_ += n;
  return true;
}

}  // namespace ember
