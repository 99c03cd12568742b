// Fuzzes the CSV reader's byte-range splits against a whole-file read of the same bytes: a file
// read in many small splits must give the same schema and the same rows, in order, as the file
// read as one partition, and must fail when the one-partition read fails. Anything else traps.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "fuzz_input_file.h"
#include "io/scan_reading.h"
#include "read_settings.h"

namespace {

/// A whole read's result: the table, or the ember::Error it threw.
struct ReadOutcome {
  std::optional<ember::Table> table;
  std::string error;
};

ReadOutcome read_csv(const std::string& path, int64_t split_bytes, int64_t batch_rows,
                     int64_t infer_rows) {
  ember::CsvOptions options;
  options.split_bytes = split_bytes;
  options.infer_rows = infer_rows;
  try {
    return {ember::testing_io::read_csv_table(path, options, batch_rows), ""};
  } catch (const ember::Error& e) {
    return {std::nullopt, e.what()};
  }
}

/// Every cell, row by row, across the table's batches.
std::vector<ember::Value> cells_of(const ember::Table& t) {
  std::vector<ember::Value> cells;
  for (const ember::Batch& b : t.batches()) {
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      for (int c = 0; c < b.num_columns(); ++c) cells.push_back(b.column(c).get(r));
    }
  }
  return cells;
}

/// Floats compare by their bits: both reads parse the same text, so even NaNs must agree.
bool same_value(const ember::Value& a, const ember::Value& b) {
  const double* x = std::get_if<double>(&a);
  const double* y = std::get_if<double>(&b);
  if (x != nullptr && y != nullptr) {
    return std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(*y);
  }
  return a == b;
}

/// The first way `split` differs from `whole`, or "" when they are the same.
std::string first_difference(const ember::Table& whole, const ember::Table& split) {
  if (!(whole.schema() == split.schema())) {
    return "schema (" + whole.schema().to_string() + ") vs (" + split.schema().to_string() + ")";
  }
  const std::vector<ember::Value> a = cells_of(whole);
  const std::vector<ember::Value> b = cells_of(split);
  const size_t width = static_cast<size_t>(whole.schema().num_fields());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (!same_value(a[i], b[i])) {
      return "row " + std::to_string(i / width) + " column " + std::to_string(i % width) + ": '" +
             ember::to_string(a[i]) + "' vs '" + ember::to_string(b[i]) + "'";
    }
  }
  if (whole.num_rows() != split.num_rows()) {
    return std::to_string(whole.num_rows()) + " rows vs " + std::to_string(split.num_rows());
  }
  return "";
}

[[noreturn]] void fail(const ember::fuzzing::ReadSettings& s, const std::string& what) {
  std::fprintf(stderr,
               "csv split equivalence (split_bytes %lld, batch_rows %lld, infer_rows %lld): %s\n",
               static_cast<long long>(s.split_bytes), static_cast<long long>(s.batch_rows),
               static_cast<long long>(s.infer_rows), what.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ember::fuzzing::ReadSettings settings = ember::fuzzing::take_read_settings(data, size);
  static ember::fuzzing::FuzzInputFile file("input.csv");
  const std::string& path = file.write(data, size);
  const ReadOutcome whole = read_csv(path, 0, 1000, settings.infer_rows);
  const ReadOutcome split =
      read_csv(path, settings.split_bytes, settings.batch_rows, settings.infer_rows);
  if (!whole.table) {
    if (split.table) fail(settings, "the whole file fails (" + whole.error + ") but splits read");
    return 0;
  }
  if (!split.table) fail(settings, "the whole file reads but splits fail: " + split.error);
  const std::string diff = first_difference(*whole.table, *split.table);
  if (!diff.empty()) fail(settings, "whole vs split: " + diff);
  return 0;
}
