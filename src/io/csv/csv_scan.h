// Planning a CSV scan: expanding the glob, settling the schema and cutting files into splits.
#pragma once

#include <string>
#include <vector>

#include "ember/csv_options.h"
#include "io/file_split.h"

namespace ember {

/// A planned CSV scan: the schema every split is read with, and the splits (one partition
/// each, read by open_csv_split).
struct CsvScan {
  Schema schema;
  std::vector<FileSplit> splits;  ///< one partition each
};

/// Expands the glob, infers (or takes) the schema, checks every file's header agrees, and cuts
/// large files into byte-range splits that start at record starts (a pipe or device is one
/// split). Throws IoError / ParseError, or InvalidArgument for bad options or repeated column
/// names.
CsvScan plan_csv_scan(const std::string& path_or_glob, const CsvOptions& options);

}  // namespace ember
