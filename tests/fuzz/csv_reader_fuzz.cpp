// Fuzzes the CSV reader as a query runs it: plan the scan, then read every split, every batch.
// Any ember::Error is a correct answer to bad input; a crash, a leak, undefined behaviour,
// another exception type or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/error.h"
#include "fuzz_input_file.h"
#include "io/scan_reading.h"
#include "read_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ember::fuzzing::ReadSettings settings = ember::fuzzing::take_read_settings(data, size);
  static ember::fuzzing::FuzzInputFile file("input.csv");
  const std::string& path = file.write(data, size);
  ember::CsvOptions options;
  options.split_bytes = settings.split_bytes;
  options.infer_rows = settings.infer_rows;
  try {
    (void)ember::testing_io::read_csv_table(path, options, settings.batch_rows);
  } catch (const ember::Error&) {
  }
  return 0;
}
