// Glob expansion, file checks and byte-range cutting for file scans.
#include "io/file_split.h"

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember {
namespace {

bool has_glob_characters(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> glob_sorted(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  if (rc == GLOB_NOMATCH) throw IoError("no file matches '" + pattern + "'");
  if (rc == GLOB_NOSPACE) throw IoError("out of memory expanding '" + pattern + "'");
  if (rc != 0) {
    // GLOB_ABORTED: a directory on the way could not be opened, most often because it does not
    // exist; name the fixed part of the pattern when that is the one missing.
    const size_t slash = pattern.find_last_of('/', pattern.find_first_of("*?["));
    const std::string dir = slash == std::string::npos ? "" : pattern.substr(0, slash);
    struct stat st{};
    if (!dir.empty() && ::stat(dir.c_str(), &st) != 0)
      throw IoError("cannot expand '" + pattern + "': no such directory '" + dir + "'");
    throw IoError("cannot expand '" + pattern + "': a directory could not be read");
  }
  // glob(3) sorts by the locale's collation; byte order is what users and tests expect.
  std::sort(out.begin(), out.end());
  return out;
}

/// Throws IoError unless `path` is a regular (or special) file this process can open for reading.
void check_readable_file(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw IoError("'" + path + "' is a directory, expected a file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  ::close(fd);
}

}  // namespace

std::vector<std::string> expand_paths(const std::string& path_or_glob) {
  if (path_or_glob.empty()) throw IoError("empty path: expected a file name or a glob");
  std::vector<std::string> paths = has_glob_characters(path_or_glob)
                                       ? glob_sorted(path_or_glob)
                                       : std::vector<std::string>{path_or_glob};
  for (const std::string& p : paths) check_readable_file(p);
  return paths;
}

int64_t file_size(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    throw IoError("cannot stat '" + path + "': " + std::strerror(errno));
  }
  return static_cast<int64_t>(st.st_size);
}

std::vector<FileSplit> split_by_size(const std::string& path, int64_t size, int64_t split_bytes) {
  if (split_bytes <= 0 || size <= split_bytes) return {FileSplit{path, 0, -1}};
  const int64_t n = (size + split_bytes - 1) / split_bytes;
  std::vector<FileSplit> splits;
  splits.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    // Boundaries at size*i/n give ranges whose sizes differ by at most one byte.
    const int64_t begin = size * i / n;
    const int64_t end = i + 1 == n ? -1 : size * (i + 1) / n;
    splits.push_back(FileSplit{path, begin, end});
  }
  return splits;
}

}  // namespace ember
