// Counts line breaks up to an offset; used on the error path (and for streams, see ChunkedFile).
#include "io/line_number.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"
#include "io/byte_source.h"

namespace ember {

int64_t count_line_breaks(const char* begin, const char* end, char before, LineBreaks breaks) {
  int64_t n = std::count(begin, end, '\n');
  if (breaks == LineBreaks::Lf) return n;
  // Every '\r' is a break, and a '\n' right after one is not a second break.
  for (const char* p = begin; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\r', static_cast<size_t>(end - p)));
    if (p == nullptr) break;
    ++n;
    if (p + 1 < end && p[1] == '\n') --n;
  }
  if (before == '\r' && begin < end && *begin == '\n') --n;
  return n;
}

int64_t line_number_at(const ByteSource& file, int64_t offset, LineBreaks breaks) {
  std::vector<char> buf(size_t{1} << 20);
  int64_t lines = 1;
  int64_t pos = 0;
  char before = 0;
  try {
    while (pos < offset) {
      const size_t want = static_cast<size_t>(std::min<int64_t>(offset - pos, buf.size()));
      const size_t n = file.read_at(buf.data(), want, pos);
      if (n == 0) break;
      lines += count_line_breaks(buf.data(), buf.data() + n, before, breaks);
      before = buf[n - 1];
      pos += static_cast<int64_t>(n);
    }
  } catch (const IoError&) {
    return 0;  // the error being reported matters more than its line
  }
  return lines;
}

}  // namespace ember
