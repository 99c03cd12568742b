// Streaming CSV reading: schema inference over a sample, file splits, batches.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/csv_options.h"
#include "io/file_split.h"

namespace ember {

struct CsvScan {
  Schema schema;
  std::vector<FileSplit> splits;  ///< one partition each
};

/// Expands the glob, infers (or takes) the schema, checks every file's header agrees, and cuts
/// large files into byte-range splits that start at record starts (a pipe or device is one
/// split). Throws IoError / ParseError, or InvalidArgument for bad options or repeated column
/// names.
CsvScan plan_csv_scan(const std::string& path_or_glob, const CsvOptions& options);
/// Reads one split as batches of at most `batch_rows` rows, streaming (bounded memory).
std::unique_ptr<BatchReader> open_csv_split(const FileSplit& split, const Schema& schema,
                                            const CsvOptions& options, int64_t batch_rows);

}  // namespace ember
