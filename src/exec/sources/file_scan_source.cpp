// Adapts the io layer's scans to the Source interface.
#include "exec/sources/file_scan_source.h"

#include <set>

#include "io/csv/csv_split_reader.h"
#include "io/jsonl/jsonl_split_reader.h"

namespace ember {

namespace {

std::string describe_splits(const std::string& kind, const std::string& pattern,
                            const std::vector<FileSplit>& splits) {
  std::set<std::string> files;
  for (const auto& s : splits) files.insert(s.path);
  return kind + " " + pattern + " (" + std::to_string(files.size()) + " files, " +
         std::to_string(splits.size()) + " partitions)";
}

/// Each file once, in split order (a large file is cut into several splits).
std::vector<std::string> files_of(const std::vector<FileSplit>& splits) {
  std::vector<std::string> files;
  for (const auto& s : splits)
    if (files.empty() || files.back() != s.path) files.push_back(s.path);
  return files;
}

}  // namespace

CsvSource::CsvSource(std::string pattern, CsvOptions options)
    : pattern_(std::move(pattern)),
      options_(std::move(options)),
      scan_(plan_csv_scan(pattern_, options_)) {}

std::unique_ptr<BatchReader> CsvSource::open(int p, int64_t batch_rows) const {
  return open_csv_split(scan_.splits.at(static_cast<size_t>(p)), scan_.schema, options_,
                        batch_rows);
}

std::string CsvSource::describe() const {
  return describe_splits("CsvScan", pattern_, scan_.splits);
}

std::vector<std::string> CsvSource::files() const { return files_of(scan_.splits); }

JsonlSource::JsonlSource(std::string pattern)
    : pattern_(std::move(pattern)), scan_(plan_jsonl_scan(pattern_)) {}

std::unique_ptr<BatchReader> JsonlSource::open(int p, int64_t batch_rows) const {
  return open_jsonl_split(scan_.splits.at(static_cast<size_t>(p)), scan_.schema, batch_rows);
}

std::string JsonlSource::describe() const {
  return describe_splits("JsonlScan", pattern_, scan_.splits);
}

std::vector<std::string> JsonlSource::files() const { return files_of(scan_.splits); }

}  // namespace ember
