// Splits a ChunkedFile into lines without copying them (for JSON lines).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/chunked_file.h"

namespace ember {

/// Reads lines one at a time; a line's bytes stay valid until the next call, and at least
/// ChunkedFile::kPaddingBytes readable bytes follow them (what simdjson needs). A trailing \r is
/// dropped. Not thread-safe.
class LineReader {
 public:
  /// Reads the split's file from its first byte, which must be 0 or the start of a line (see
  /// FileSplit). At 0, a UTF-8 byte-order mark is skipped.
  explicit LineReader(const FileSplit& split) : file_(split, LineBreaks::Lf), pos_(file_.begin()) {
    if (split.begin == 0) file_.skip_byte_order_mark(pos_);
  }

  /// Reads the next line; false at the end of the file.
  bool next();

  std::string_view line() const { return line_; }
  /// True when the current line holds only spaces and tabs (or nothing).
  bool blank() const { return line_.find_first_not_of(" \t") == std::string_view::npos; }
  /// Absolute file offset of the current line's first byte.
  int64_t line_offset() const { return line_offset_; }
  /// The current line's 1-based number, for error messages (see ChunkedFile::line_number_at).
  int64_t line_number() const { return file_.line_number_at(line_offset_); }
  const std::string& path() const { return file_.path(); }

 private:
  ChunkedFile file_;
  char* pos_;
  std::string_view line_;
  int64_t line_offset_ = 0;
};

}  // namespace ember
