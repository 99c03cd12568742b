// Streaming JSON-lines reading with simdjson.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/types.h"
#include "io/batch_reader.h"
#include "io/file_split.h"

namespace ember {

struct JsonlScan {
  Schema schema;
  std::vector<FileSplit> splits;
};

/// Expands the glob and infers the schema over a sample (keys in first-seen order; a missing
/// key or JSON null is a null).
JsonlScan plan_jsonl_scan(const std::string& path_or_glob);
std::unique_ptr<BatchReader> open_jsonl_split(const FileSplit& split, const Schema& schema,
                                              int64_t batch_rows);

}  // namespace ember
