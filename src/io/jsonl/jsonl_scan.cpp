// plan_jsonl_scan: expands the glob, infers the schema over a sample and cuts splits at line
// starts.
#include "io/jsonl/jsonl_scan.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"
#include "io/byte_source.h"
#include "io/jsonl/jsonl_object.h"
#include "io/jsonl/jsonl_type_inference.h"
#include "io/line_reader.h"
#include "io/stream_input.h"

namespace ember {
namespace {

/// The offset just after the first '\n' at or after `from` in `file` (the start of the next
/// line: a '\n' never lies inside a JSON value), or -1 when there is none.
int64_t next_line_start(const ByteSource& file, int64_t from) {
  std::vector<char> buf(size_t{64} << 10);
  int64_t found = -1;
  for (int64_t pos = from; found < 0;) {
    const size_t n = file.read_at(buf.data(), buf.size(), pos);
    if (n == 0) break;
    const void* nl = std::memchr(buf.data(), '\n', n);
    if (nl != nullptr) found = pos + (static_cast<const char*>(nl) - buf.data()) + 1;
    pos += static_cast<int64_t>(n);
  }
  return found;
}

/// Line starts for the cuts of a file: a line starts at the cut when the byte before it is a
/// '\n', else after the next '\n'.
std::vector<int64_t> line_starts(const std::string& path, const std::vector<int64_t>& cuts,
                                 const StorageOptions& storage, int64_t size) {
  if (cuts.empty()) return {};
  const std::unique_ptr<ByteSource> file = open_byte_source(path, storage, size);
  std::vector<int64_t> starts;
  for (const int64_t cut : cuts) {
    if (!starts.empty() && starts.back() >= cut) continue;  // a line longer than a split
    const int64_t start = next_line_start(*file, cut - 1);
    if (start < 0) break;
    starts.push_back(start);
  }
  return starts;
}

}  // namespace

JsonlScan plan_jsonl_scan(const std::string& path_or_glob, int64_t split_bytes, int64_t infer_rows,
                          const StorageOptions& storage) {
  if (infer_rows < 1)
    throw InvalidArgument(
        "JsonlOptions::infer_rows must be >= 1 (the columns are inferred from "
        "a sample), got " +
        std::to_string(infer_rows));
  if (split_bytes < 0)
    throw InvalidArgument("JsonlOptions::split_bytes must be >= 0, got " +
                          std::to_string(split_bytes));
  const std::vector<FoundFile> found = expand_files(path_or_glob, storage);
  JsonlTypeInference inference;
  simdjson::dom::parser parser;
  int64_t sampled = 0;
  JsonlScan scan;
  for (const FoundFile& file : found) {
    const std::string& path = file.path;
    // A pipe or device is opened once, here, and its sampled bytes kept for its reader.
    FileSplit whole{path, 0, -1, nullptr, file.size, storage};
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
    const int64_t size = file.size >= 0 ? file.size : file_size(path);
    const std::vector<int64_t> starts =
        line_starts(path, cut_offsets(size, split_bytes), storage, size);
    for (FileSplit& s : splits_at(path, starts, size, storage)) {
      scan.splits.push_back(std::move(s));
    }
  }
  scan.schema = inference.schema();
  return scan;
}

}  // namespace ember
