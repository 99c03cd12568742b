// Turning a byte offset into a 1-based line number, for error messages.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

class ByteSource;

/// Which bytes end a line. JSON lines end at '\n' only (a '\r' before it is part of the line
/// end, and a lone '\r' is whitespace); CSV records also end at a lone '\r' (old Mac files).
enum class LineBreaks : uint8_t {
  Lf,   ///< '\n' (so "\r\n" too)
  Any,  ///< '\n', "\r\n" or a lone '\r', each one line break
};

/// Line breaks in [begin, end), where `before` is the byte just before `begin` (0 when none).
/// Under LineBreaks::Any a "\r\n" counts once: at its '\r', so a '\n' after a '\r' is skipped
/// (looking back rather than ahead, the count never depends on bytes not read yet).
int64_t count_line_breaks(const char* begin, const char* end, char before, LineBreaks breaks);

/// The 1-based line that contains byte `offset` of `file` (line breaks before it, plus one).
/// Reads the file from its start, so call it only when reporting an error; 0 if unreadable.
int64_t line_number_at(const ByteSource& file, int64_t offset, LineBreaks breaks);

}  // namespace ember
