// One line of a JSON-lines file as an object, and errors that point at its keys: shared by
// schema inference and the split reader.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

#include "io/line_reader.h"

namespace ember {

/// Parses the current line of `lines` as a JSON object (the line must be followed by
/// simdjson's padding, which LineReader guarantees). Throws ParseError "file:line:1:" when it is
/// not valid JSON or not an object.
simdjson::dom::object parse_jsonl_object(simdjson::dom::parser& parser, const LineReader& lines);

/// The 1-based byte column of the `occurrence`-th (1-based) appearance of `key` as a quoted key
/// in `line`, for error messages; 1 when it is not found as written (e.g. written with escapes).
int64_t jsonl_key_column(std::string_view line, std::string_view key, int occurrence = 1);

/// Throws ParseError "file:line:column:" for a key that appears twice in the current line's
/// object: JSON parsers disagree on which of the values wins, so none is picked.
[[noreturn]] void fail_repeated_key(const LineReader& lines, std::string_view key);

}  // namespace ember
