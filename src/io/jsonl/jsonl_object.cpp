// Parsing a JSON-lines line as an object, and key columns for error messages; see
// jsonl_object.h.
#include "io/jsonl/jsonl_object.h"

#include <string>

#include "ember/error.h"

namespace ember {

simdjson::dom::object parse_jsonl_object(simdjson::dom::parser& parser, const LineReader& lines) {
  const std::string_view line = lines.line();
  simdjson::dom::element doc;
  simdjson::error_code err = parser.parse(line.data(), line.size(), false).get(doc);
  if (err == simdjson::SUCCESS && doc.type() != simdjson::dom::element_type::OBJECT) {
    throw ParseError::at(lines.path(), lines.line_number(), 1,
                         "expected a JSON object per line, got " +
                             std::string(doc.is_array() ? "an array" : "a scalar"));
  }
  if (err != simdjson::SUCCESS) {
    // simdjson rejects integers beyond 64 bits as malformed numbers: say so.
    const std::string hint = err == simdjson::NUMBER_ERROR
                                 ? " (an integer must fit in 64 bits: write a larger one as a "
                                   "string, or with a fraction to read it as float64)"
                                 : "";
    throw ParseError::at(lines.path(), lines.line_number(), 1,
                         std::string("malformed JSON: ") + simdjson::error_message(err) + hint);
  }
  return doc.get_object().value_unsafe();
}

int64_t jsonl_key_column(std::string_view line, std::string_view key, int occurrence) {
  std::string quoted;
  quoted.reserve(key.size() + 2);
  quoted.append(1, '"').append(key).append(1, '"');
  size_t at = std::string_view::npos;
  for (int i = 0; i < occurrence; ++i) {
    at = line.find(quoted, at == std::string_view::npos ? 0 : at + 1);
    if (at == std::string_view::npos) return 1;
  }
  return static_cast<int64_t>(at) + 1;
}

void fail_repeated_key(const LineReader& lines, std::string_view key) {
  throw ParseError::at(lines.path(), lines.line_number(), jsonl_key_column(lines.line(), key, 2),
                       "key '" + std::string(key) +
                           "' appears twice in one object; JSON readers disagree on which value "
                           "wins, so ember takes neither: remove one of them");
}

}  // namespace ember
