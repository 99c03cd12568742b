// Counts newlines up to an offset; used only on the error path.
#include "io/line_number.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace ember {

int64_t line_number_at(const std::string& path, int64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::vector<char> buf(size_t{1} << 20);
  int64_t newlines = 0;
  int64_t pos = 0;
  while (pos < offset) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(offset - pos, buf.size()));
    const ssize_t n = ::pread(fd, buf.data(), want, pos);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    newlines += std::count(buf.data(), buf.data() + n, '\n');
    pos += n;
  }
  ::close(fd);
  return newlines + 1;
}

}  // namespace ember
