// Reading a non-regular file once, with the planner's bytes kept for the reader; see
// stream_input.h.
#include "io/stream_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember {

StreamInput::StreamInput(std::string path) : path_(std::move(path)) {
  do {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) throw IoError("cannot open '" + path_ + "': " + std::strerror(errno));
}

StreamInput::~StreamInput() {
  if (fd_ >= 0) ::close(fd_);
}

size_t StreamInput::read_at(char* out, size_t size, int64_t offset) {
  if (offset < kept_end_) {
    if (kept_.size() != static_cast<size_t>(kept_end_)) {
      throw IoError("cannot read '" + path_ + "' again: it is a pipe or device");
    }
    const size_t n = std::min(size, static_cast<size_t>(kept_end_ - offset));
    std::memcpy(out, kept_.data() + offset, n);
    return n;
  }
  if (offset != stream_offset_) {
    throw IoError("cannot seek in '" + path_ + "': it is a pipe or device");
  }
  if (!keeping_ && !kept_.empty()) {
    kept_ = std::string();  // the reader is past the kept bytes: release them
  }
  ssize_t n;
  do {
    n = ::read(fd_, out, size);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
  if (keeping_) {
    kept_.append(out, static_cast<size_t>(n));
    kept_end_ += n;
  }
  stream_offset_ += n;
  return static_cast<size_t>(n);
}

void StreamInput::claim_for_reading() {
  if (claimed_.exchange(true)) {
    throw IoError("'" + path_ +
                  "' is a pipe or device, so its data can be read only once, and a query read "
                  "it already; call read_csv or read_jsonl again to read what it holds now");
  }
}

}  // namespace ember
