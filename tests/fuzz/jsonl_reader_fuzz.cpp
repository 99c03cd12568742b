// Fuzzes the JSON-lines reader as a query runs it: plan the scan, then read every split, every
// batch. Any ember::Error is a correct answer to bad input; a crash, a leak, undefined
// behaviour, another exception type or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/error.h"
#include "fuzz_input_file.h"
#include "io/scan_reading.h"
#include "read_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ember::fuzzing::ReadSettings settings = ember::fuzzing::take_read_settings(data, size);
  static ember::fuzzing::FuzzInputFile file("input.jsonl");
  const std::string& path = file.write(data, size);
  try {
    // As read_jsonl_table does, with the sample size set as well.
    const ember::JsonlScan scan =
        ember::plan_jsonl_scan(path, settings.split_bytes, settings.infer_rows);
    std::vector<ember::Batch> batches;
    for (const ember::FileSplit& split : scan.splits) {
      auto reader = ember::open_jsonl_split(split, scan.schema, settings.batch_rows);
      ember::testing_io::drain(*reader, settings.batch_rows, batches);
    }
    (void)ember::Table(scan.schema, std::move(batches));
  } catch (const ember::Error&) {
  }
  return 0;
}
