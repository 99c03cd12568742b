// Glob expansion, file checks and cutting files into byte-range splits.
#include "io/file_split.h"

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "ember/error.h"
#include "io/storage/remote_glob.h"
#include "io/storage/storage_url.h"

namespace ember {
namespace {

bool has_glob_characters(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> glob_sorted(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> out;
  // Like Hadoop and Spark, a wildcard skips names starting with '_' (glob(3) already skips
  // '.'): `out/*` then reads the parts of a committed output, not its _SUCCESS marker.
  const bool underscore_asked = base_name(pattern).rfind('_', 0) == 0;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      if (underscore_asked || base_name(g.gl_pathv[i]).rfind('_', 0) != 0) {
        out.emplace_back(g.gl_pathv[i]);
      }
    }
  }
  ::globfree(&g);
  if (rc == GLOB_NOMATCH || (rc == 0 && out.empty())) {
    throw IoError("no file matches '" + pattern + "'");
  }
  if (rc == GLOB_NOSPACE) throw IoError("out of memory expanding '" + pattern + "'");
  if (rc != 0) {
    // GLOB_ABORTED: a directory on the way could not be opened, most often because it does not
    // exist; name the fixed part of the pattern when that is the one missing.
    const size_t slash = pattern.find_last_of('/', pattern.find_first_of("*?["));
    const std::string dir = slash == std::string::npos ? "" : pattern.substr(0, slash);
    struct stat st {};
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
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw IoError("'" + path + "' is a directory, expected a file");
  if (!S_ISREG(st.st_mode)) {
    // Opening a FIFO waits for a writer, and closing it again would drop what the writer sent:
    // a stream is opened once, by the planner (see StreamInput).
    if (::access(path.c_str(), R_OK) != 0) {
      throw IoError("cannot open '" + path + "': " + std::strerror(errno));
    }
    return;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  ::close(fd);
}

}  // namespace

std::vector<FoundFile> expand_files(const std::string& path_or_glob,
                                    const StorageOptions& storage) {
  if (path_or_glob.empty()) throw IoError("empty path: expected a file name or a glob");
  const StorageUrl url = parse_storage_url(path_or_glob);
  std::vector<FoundFile> found;
  if (url.remote()) {
    for (RemoteFile& f : expand_remote(url, storage))
      found.push_back(FoundFile{std::move(f.url), f.size});
    return found;
  }
  std::vector<std::string> paths =
      has_glob_characters(url.path) ? glob_sorted(url.path) : std::vector<std::string>{url.path};
  for (std::string& p : paths) {
    check_readable_file(p);
    found.push_back(FoundFile{std::move(p), -1});
  }
  return found;
}

std::vector<std::string> expand_paths(const std::string& path_or_glob,
                                      const StorageOptions& storage) {
  std::vector<std::string> paths;
  for (FoundFile& f : expand_files(path_or_glob, storage)) paths.push_back(std::move(f.path));
  return paths;
}

int64_t file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw IoError("cannot stat '" + path + "': " + std::strerror(errno));
  }
  return static_cast<int64_t>(st.st_size);
}

bool is_stream_file(const std::string& path) {
  if (is_remote_path(path)) return false;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw IoError("cannot stat '" + path + "': " + std::strerror(errno));
  }
  return !S_ISREG(st.st_mode);
}

std::vector<int64_t> cut_offsets(int64_t size, int64_t split_bytes) {
  if (split_bytes <= 0 || size <= split_bytes) return {};
  const int64_t n = (size + split_bytes - 1) / split_bytes;
  std::vector<int64_t> cuts;
  cuts.reserve(static_cast<size_t>(n - 1));
  // Cuts at size*i/n give ranges whose sizes differ by at most one byte.
  for (int64_t i = 1; i < n; ++i) cuts.push_back(size * i / n);
  return cuts;
}

std::vector<FileSplit> splits_at(const std::string& path, const std::vector<int64_t>& record_starts,
                                 int64_t size, const StorageOptions& storage) {
  std::vector<FileSplit> splits{FileSplit{path, 0, -1, nullptr, size, storage}};
  for (const int64_t start : record_starts) {
    if (start <= splits.back().begin || start >= size) continue;
    splits.back().end = start;
    splits.push_back(FileSplit{path, start, -1, nullptr, size, storage});
  }
  return splits;
}

}  // namespace ember
