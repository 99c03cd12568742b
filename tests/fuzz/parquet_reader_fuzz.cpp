// Fuzzes the Parquet reader as a query runs it: read the footer, plan the scan, then read every
// row group's columns in batches. Any ember::Error is a correct answer to bad input; a crash, a
// leak, undefined behaviour, another exception type or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/error.h"
#include "fuzz_input_file.h"
#include "io/parquet/parquet_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ember::fuzzing::FuzzInputFile file("input.parquet");
  const std::string& path = file.write(data, size);
  try {
    const ember::ParquetScan scan = ember::plan_parquet_scan(path, {});
    std::vector<ember::Batch> batches;
    for (size_t p = 0; p < scan.parts.size(); ++p) {
      auto reader = ember::open_parquet_part(scan, static_cast<int>(p), 97);
      while (auto b = reader->next()) batches.push_back(std::move(*b));
    }
    (void)ember::Table(scan.schema, std::move(batches));
  } catch (const ember::Error&) {
  }
  return 0;
}
