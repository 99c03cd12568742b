// Splitting a line-oriented file into byte ranges that start and end on line boundaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

/// A [begin, end) byte range of whole lines.
struct LineRange {
  int64_t begin = 0, end = 0;
};

/// Cuts `path` into ranges of about `bytes` bytes, each moved forward to the next line start;
/// the first skips the header line. Throws std::runtime_error if the file cannot be read.
std::vector<LineRange> split_lines(const std::string& path, int64_t bytes);

/// Reads bytes [r.begin, r.end) of `path`.
std::string read_range(const std::string& path, const LineRange& r);

/// Calls `f(line)` for every line of `text` (without the newline).
template <class F>
void for_each_line(const std::string& text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    f(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
  }
}

}  // namespace bench
