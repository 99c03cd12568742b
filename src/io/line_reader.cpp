// Line splitting over a refilled buffer; see line_reader.h.
#include "io/line_reader.h"

#include <cstring>

namespace ember {

bool LineReader::next() {
  // Resume the search where the previous pass stopped so a long line is scanned once.
  size_t scanned = 0;
  for (;;) {
    char* start = pos_;
    char* nl =
        static_cast<char*>(std::memchr(start + scanned, '\n', file_.end() - start - scanned));
    char* stop = nl;
    if (nl == nullptr) {
      if (!file_.at_eof()) {
        scanned = static_cast<size_t>(file_.end() - start);
        file_.refill(pos_);
        continue;
      }
      if (start == file_.end()) return false;
      stop = file_.end();  // the last line has no newline
    }
    size_t size = static_cast<size_t>(stop - start);
    if (size > 0 && start[size - 1] == '\r') --size;
    line_ = std::string_view(start, size);
    line_offset_ = file_.offset_of(start);
    pos_ = nl != nullptr ? nl + 1 : file_.end();
    return true;
  }
}

}  // namespace ember
