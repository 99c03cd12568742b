// Files and byte ranges of files: the partitions of a file scan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// A byte range [begin, end) of a file; end = -1 means to the end of the file. A reader of a
/// split that does not start at 0 skips to the first record that starts in the range, and
/// reads the record that straddles `end` to its finish.
///
/// Precisely: a record starting at byte s belongs to the split [begin, end) when s = begin = 0
/// or when the byte before it (a newline) lies in [begin, end), i.e. begin < s <= end. So a
/// reader starts just after the first newline at or after `begin`, and stops before the first
/// record that starts after `end`: every record is read by exactly one split.
struct FileSplit {
  std::string path;
  int64_t begin = 0;
  int64_t end = -1;
};

/// The files a path or glob names, sorted. Throws IoError if none exist or a file is unreadable
/// or is a directory.
std::vector<std::string> expand_paths(const std::string& path_or_glob);

/// Size of a file in bytes. Throws IoError naming the file.
int64_t file_size(const std::string& path);

/// Cuts a file of `size` bytes into about equal byte ranges of at most `split_bytes` each (one
/// split covering the whole file when `split_bytes` <= 0 or the file is not larger).
std::vector<FileSplit> split_by_size(const std::string& path, int64_t size, int64_t split_bytes);

}  // namespace ember
