// Newline counting over byte ranges of a file, one std::thread per range.
#include "line_count_floor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ember::bench {
namespace {

/// Newlines in [lo, hi) of `fd`; false on a read error.
bool count_range(int fd, int64_t lo, int64_t hi, int64_t* lines) {
  std::vector<char> buf(size_t{4} << 20);
  int64_t count = 0;
  for (int64_t pos = lo; pos < hi;) {
    const size_t want =
        static_cast<size_t>(std::min<int64_t>(hi - pos, static_cast<int64_t>(buf.size())));
    const ssize_t got = ::pread(fd, buf.data(), want, pos);
    if (got <= 0) return false;
    const char* p = buf.data();
    const char* end = p + got;
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
      ++count;
      ++p;
    }
    pos += got;
  }
  *lines = count;
  return true;
}

}  // namespace

int64_t count_lines(const std::string& path, int threads) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  struct stat st {};
  ::fstat(fd, &st);
  const int64_t size = st.st_size;
  std::vector<int64_t> lines(static_cast<size_t>(threads), 0);
  std::atomic<bool> ok{true};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      if (!count_range(fd, size * t / threads, size * (t + 1) / threads,
                       &lines[static_cast<size_t>(t)]))
        ok = false;
    });
  }
  for (std::thread& w : workers) w.join();
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot read " + path);
  int64_t total = 0;
  for (int64_t l : lines) total += l;
  return total;
}

}  // namespace ember::bench
