// Planning a JSON-lines scan: expanding the glob, inferring the schema and cutting files into
// splits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/storage_options.h"
#include "ember/types.h"
#include "io/file_split.h"

namespace ember {

/// A planned JSON-lines scan: the schema every split is read with, and the splits (one
/// partition each, read by open_jsonl_split).
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
/// An s3:// or http(s):// path is read with `storage`'s endpoint and credentials.
JsonlScan plan_jsonl_scan(const std::string& path_or_glob, int64_t split_bytes = kJsonlSplitBytes,
                          int64_t infer_rows = kJsonlInferRows, const StorageOptions& storage = {});

}  // namespace ember
