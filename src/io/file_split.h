// Files and byte ranges of files: the partitions of a file scan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// A byte range [begin, end) of a file; end = -1 means to the end of the file. A reader of a
/// split that does not start at 0 skips to the first record that starts in the range, and
/// reads the record that straddles `end` to its finish.
struct FileSplit {
  std::string path;
  int64_t begin = 0;
  int64_t end = -1;
};

/// The files a path or glob names, sorted. Throws IoError if none exist or a file is unreadable.
std::vector<std::string> expand_paths(const std::string& path_or_glob);

}  // namespace ember
