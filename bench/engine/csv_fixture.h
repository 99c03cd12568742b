// The deterministic CSV file the CSV benchmarks read: generated once, reused by later runs.
#pragma once

#include <cstdint>
#include <string>

namespace ember::bench {

/// A generated CSV: header "id,a,b,s", then rows id (0..rows-1, int64), a (float64),
/// b (int64, may be negative), s (a short word).
struct CsvFixture {
  std::string path;
  int64_t bytes = 0;
  int64_t rows = 0;  ///< data rows, header excluded
};

/// The fixture of at least `target_bytes` under `dir` (created if needed). A complete file from
/// an earlier run (its "<name>.meta" sidecar matches the file's size) is reused; otherwise it is
/// written to a temporary name and renamed, so an interrupted run never leaves a short file
/// that looks complete. Throws std::runtime_error on I/O failure.
CsvFixture ensure_csv_fixture(const std::string& dir, int64_t target_bytes);

}  // namespace ember::bench
