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

std::string ReadOnlyFile::read(int64_t offset, int64_t size, const char* what) const {
  std::string out(static_cast<size_t>(size), '\0');
  int64_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, static_cast<size_t>(size - done), offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
    if (n == 0) throw ParseError(path_ + ": file ends inside " + what + " (truncated?)");
    done += n;
  }
  return out;
}

}  // namespace ember
