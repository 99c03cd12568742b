// Temp-file-then-rename output; see atomic_file.h.
#include "io/output/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ember/error.h"

namespace ember {

AtomicFile::AtomicFile(const std::string& dir, const std::string& name)
    : dir_(dir), temp_path_(dir + "/." + name + ".tmp"), final_path_(dir + "/" + name) {
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("create", errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());  // best effort: nothing to report it to
}

void AtomicFile::write(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", errno);
    }
    if (n == 0) fail("write", ENOSPC);  // no progress and no error: treat as a full device
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  if (committed_) return;
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("sync", errno);  // EINVAL: e.g. a pipe
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close", errno);
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) fail("rename", errno);
  committed_ = true;
  // Make the rename itself durable; a directory that cannot be opened or synced is not fatal
  // (the data is already safe in the file).
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

void AtomicFile::fail(const char* action, int error) const {
  throw IoError(std::string("cannot ") + action + " '" + temp_path_ + "' (output file '" +
                final_path_ + "'): " + std::strerror(error));
}

}  // namespace ember
