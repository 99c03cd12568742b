// plan_jsonl_scan and the line-to-object parse shared with the split reader.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"
#include "io/jsonl_reader.h"
#include "io/jsonl_type_inference.h"
#include "io/stream_input.h"

namespace ember {
namespace {

/// The offset just after the first '\n' at or after `from` in `path` (the start of the next
/// line: a '\n' never lies inside a JSON value), or -1 when there is none.
int64_t next_line_start(const std::string& path, int64_t from) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<char> buf(size_t{64} << 10);
  int64_t found = -1;
  for (int64_t pos = from; found < 0;) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), pos);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const void* nl = std::memchr(buf.data(), '\n', static_cast<size_t>(n));
    if (nl != nullptr) found = pos + (static_cast<const char*>(nl) - buf.data()) + 1;
    pos += n;
  }
  ::close(fd);
  return found;
}

/// Line starts for the cuts of a file: a line starts at the cut when the byte before it is a
/// '\n', else after the next '\n'.
std::vector<int64_t> line_starts(const std::string& path, const std::vector<int64_t>& cuts) {
  std::vector<int64_t> starts;
  for (const int64_t cut : cuts) {
    if (!starts.empty() && starts.back() >= cut) continue;  // a line longer than a split
    const int64_t start = next_line_start(path, cut - 1);
    if (start < 0) break;
    starts.push_back(start);
  }
  return starts;
}

}  // namespace

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

JsonlScan plan_jsonl_scan(const std::string& path_or_glob, int64_t split_bytes,
                          int64_t infer_rows) {
  const std::vector<std::string> paths = expand_paths(path_or_glob);
  JsonlTypeInference inference;
  simdjson::dom::parser parser;
  int64_t sampled = 0;
  JsonlScan scan;
  for (const std::string& path : paths) {
    // A pipe or device is opened once, here, and its sampled bytes kept for its reader.
    FileSplit whole{path, 0, -1, nullptr};
    if (is_stream_file(path)) whole.stream = std::make_shared<StreamInput>(path);
    // Sample the first lines of the first files until infer_rows objects were seen.
    if (sampled < infer_rows) {
      LineReader lines(whole);
      while (sampled < infer_rows && lines.next()) {
        if (lines.blank()) continue;
        inference.observe(parse_jsonl_object(parser, lines), lines);
        ++sampled;
      }
    }
    if (whole.stream) {
      whole.stream->stop_keeping();
      scan.splits.push_back(std::move(whole));  // a stream cannot seek: one split
      continue;
    }
    const int64_t size = file_size(path);
    for (FileSplit& s : splits_at(path, line_starts(path, cut_offsets(size, split_bytes)), size)) {
      scan.splits.push_back(std::move(s));
    }
  }
  scan.schema = inference.schema();
  return scan;
}

}  // namespace ember
