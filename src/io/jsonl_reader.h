// Streaming JSON-lines reading with simdjson.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/types.h"
#include "io/file_split.h"
#include "io/line_reader.h"

namespace ember {

struct JsonlScan {
  Schema schema;
  std::vector<FileSplit> splits;
};

/// Files larger than this are read as several byte-range splits (one partition each).
inline constexpr int64_t kJsonlSplitBytes = int64_t{64} << 20;
/// Non-blank lines sampled (from the first files) for schema inference.
inline constexpr int64_t kJsonlInferRows = 1000;

/// Expands the glob and infers the schema over a sample (keys in first-seen order; a missing
/// key or JSON null is a null). Large files are cut into splits that start after a '\n', which
/// never falls inside a JSON value. Throws IoError / ParseError.
JsonlScan plan_jsonl_scan(const std::string& path_or_glob, int64_t split_bytes = kJsonlSplitBytes,
                          int64_t infer_rows = kJsonlInferRows);
/// Reads one split as batches of at most `batch_rows` rows, streaming (bounded memory). Keys not
/// in `schema` are ignored; a value of the wrong type, or malformed JSON, is a ParseError
/// "file:line:column:" (column = byte column of the key, 1 when unknown).
std::unique_ptr<BatchReader> open_jsonl_split(const FileSplit& split, const Schema& schema,
                                              int64_t batch_rows);

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
