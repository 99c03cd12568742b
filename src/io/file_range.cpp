// pread until the range is whole, retrying interrupted reads.
#include "io/file_range.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember {

ReadOnlyFile::ReadOnlyFile(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
}

ReadOnlyFile::~ReadOnlyFile() { ::close(fd_); }

int64_t ReadOnlyFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw IoError("cannot stat '" + path_ + "': " + std::strerror(errno));
  return static_cast<int64_t>(st.st_size);
}

size_t ReadOnlyFile::read_at(char* out, size_t size, int64_t offset) const {
  ssize_t n;
  do {
    n = ::pread(fd_, out, size, offset);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
  return static_cast<size_t>(n);
}

void ReadOnlyFile::hint_sequential() const {
  // Failure to advise is harmless.
  (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

}  // namespace ember
