// Reads a whole planned scan (every split, in order) into a Table, as the executor would.
#pragma once

#include <vector>

#include "ember/batch.h"
#include "ember/error.h"
#include "io/csv/csv_scan.h"
#include "io/csv/csv_split_reader.h"
#include "io/jsonl/jsonl_scan.h"
#include "io/jsonl/jsonl_split_reader.h"

namespace ember::testing_io {

/// Drains a reader, checking every batch respects the row limit.
inline void drain(BatchReader& reader, int64_t batch_rows, std::vector<Batch>& out) {
  while (auto b = reader.next()) {
    if (b->num_rows() > batch_rows || b->num_rows() == 0) throw std::logic_error("bad batch size");
    out.push_back(std::move(*b));
  }
}

inline Table read_csv_table(const std::string& glob, const CsvOptions& options = {},
                            int64_t batch_rows = 1000) {
  const CsvScan scan = plan_csv_scan(glob, options);
  std::vector<Batch> batches;
  for (const FileSplit& s : scan.splits) {
    auto reader = open_csv_split(s, scan.schema, options, batch_rows);
    drain(*reader, batch_rows, batches);
  }
  return Table(scan.schema, std::move(batches));
}

inline Table read_jsonl_table(const std::string& glob, int64_t split_bytes = kJsonlSplitBytes,
                              int64_t batch_rows = 1000) {
  const JsonlScan scan = plan_jsonl_scan(glob, split_bytes);
  std::vector<Batch> batches;
  for (const FileSplit& s : scan.splits) {
    auto reader = open_jsonl_split(s, scan.schema, batch_rows);
    drain(*reader, batch_rows, batches);
  }
  return Table(scan.schema, std::move(batches));
}

/// Expects `f` to throw E and returns its message ("" when it did not throw E).
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// The ParseError message reading the CSV file at `path` throws ("" when it reads).
inline std::string csv_error(const std::string& path, const CsvOptions& options = {}) {
  return error_of<ParseError>([&] { read_csv_table(path, options); });
}

}  // namespace ember::testing_io
