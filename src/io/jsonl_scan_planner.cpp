// plan_jsonl_scan and the line-to-object parse shared with the split reader.
#include "ember/error.h"
#include "io/jsonl_reader.h"
#include "io/jsonl_type_inference.h"
#include "io/line_number.h"

namespace ember {

simdjson::dom::object parse_jsonl_object(simdjson::dom::parser& parser, const LineReader& lines) {
  const std::string_view line = lines.line();
  simdjson::dom::element doc;
  simdjson::error_code err = parser.parse(line.data(), line.size(), false).get(doc);
  if (err == simdjson::SUCCESS && doc.type() != simdjson::dom::element_type::OBJECT) {
    throw ParseError::at(lines.path(),
                         line_number_at(lines.path(), lines.line_offset(), LineBreaks::Lf), 1,
                         "expected a JSON object per line, got " +
                             std::string(doc.is_array() ? "an array" : "a scalar"));
  }
  if (err != simdjson::SUCCESS) {
    throw ParseError::at(lines.path(),
                         line_number_at(lines.path(), lines.line_offset(), LineBreaks::Lf), 1,
                         std::string("malformed JSON: ") + simdjson::error_message(err));
  }
  return doc.get_object().value_unsafe();
}

JsonlScan plan_jsonl_scan(const std::string& path_or_glob, int64_t split_bytes,
                          int64_t infer_rows) {
  const std::vector<std::string> paths = expand_paths(path_or_glob);
  JsonlTypeInference inference;
  simdjson::dom::parser parser;
  int64_t sampled = 0;
  JsonlScan scan;
  for (const std::string& path : paths) {
    // Sample the first lines of the first files until infer_rows objects were seen.
    if (sampled < infer_rows) {
      LineReader lines(path, 0);
      while (sampled < infer_rows && lines.next()) {
        if (lines.blank()) continue;
        inference.observe(parse_jsonl_object(parser, lines));
        ++sampled;
      }
    }
    for (FileSplit& s : split_by_size(path, file_size(path), split_bytes)) {
      scan.splits.push_back(std::move(s));
    }
  }
  scan.schema = inference.schema();
  return scan;
}

}  // namespace ember
