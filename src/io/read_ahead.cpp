// One request ahead of a sequential reader.
#include "io/read_ahead.h"

#include <algorithm>
#include <cstring>

namespace ember {

ReadAhead::~ReadAhead() { drop_pending(); }

void ReadAhead::drop_pending() noexcept {
  if (!pending_) return;
  try {
    pending_->get();  // wait: the request reads `file_`, which may go next
  } catch (...) {
    // Nobody asked for these bytes, nor for their error.
  }
  pending_.reset();
}

void ReadAhead::ask_ahead(int64_t offset) {
  const int64_t end = std::min(stop_at_, file_.size());
  if (offset >= end) return;
  const size_t size =
      static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(chunk_), end - offset));
  const ByteSource* file = &file_;
  pending_offset_ = offset;
  pending_ = std::async(std::launch::async, [file, offset, size] {
    std::string bytes(size, '\0');
    size_t done = 0;
    while (done < size) {
      const size_t n =
          file->read_at(bytes.data() + done, size - done, offset + static_cast<int64_t>(done));
      if (n == 0) break;
      done += n;
    }
    bytes.resize(done);
    return bytes;
  });
}

size_t ReadAhead::read_at(char* out, size_t size, int64_t offset) {
  if (used_ == buffered_.size() && pending_ && pending_offset_ == offset) {
    buffered_ = pending_->get();  // throws the request's error, where the reader wants it
    pending_.reset();
    buffered_offset_ = offset;
    used_ = 0;
  }
  const bool buffered =
      used_ < buffered_.size() && buffered_offset_ + static_cast<int64_t>(used_) == offset;
  size_t n;
  if (buffered) {
    n = std::min(size, buffered_.size() - used_);
    std::memcpy(out, buffered_.data() + used_, n);
    used_ += n;
  } else {
    drop_pending();
    buffered_.clear();
    used_ = 0;
    n = file_.read_at(out, size, offset);
  }
  // The next request goes out as soon as the bytes handed out run ahead of the ones held.
  if (n > 0 && used_ == buffered_.size() && !pending_) ask_ahead(offset + static_cast<int64_t>(n));
  return n;
}

}  // namespace ember
