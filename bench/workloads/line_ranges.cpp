// Range cutting with pread: each boundary moves to just after the next newline.
#include "line_ranges.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>

namespace bench {

namespace {

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY)) {
    if (fd_ < 0) throw std::runtime_error("cannot open " + path);
  }
  ~Fd() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

/// The offset just after the first newline at or after `from` (the file size if none).
int64_t next_line_start(int fd, int64_t from, int64_t size) {
  char buf[4096];
  while (from < size) {
    ssize_t n = ::pread(fd, buf, sizeof buf, from);
    if (n <= 0) throw std::runtime_error("read error while splitting lines");
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == '\n') return from + i + 1;
    from += n;
  }
  return size;
}

}  // namespace

std::vector<LineRange> split_lines(const std::string& path, int64_t bytes) {
  Fd fd(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw std::runtime_error("cannot stat " + path);
  const int64_t size = st.st_size;
  std::vector<LineRange> ranges;
  int64_t begin = next_line_start(fd.get(), 0, size);  // skip the header
  while (begin < size) {
    int64_t end = begin + bytes >= size ? size : next_line_start(fd.get(), begin + bytes, size);
    ranges.push_back({begin, end});
    begin = end;
  }
  return ranges;
}

std::string read_range(const std::string& path, const LineRange& r) {
  Fd fd(path);
  std::string out(static_cast<size_t>(r.end - r.begin), '\0');
  int64_t done = 0;
  while (done < r.end - r.begin) {
    ssize_t n = ::pread(fd.get(), out.data() + done, static_cast<size_t>(r.end - r.begin - done),
                        r.begin + done);
    if (n <= 0) throw std::runtime_error("read error in " + path);
    done += n;
  }
  return out;
}

}  // namespace bench
