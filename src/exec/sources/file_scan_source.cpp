// Adapts the io layer's scans to the Source interface.
#include "exec/sources/file_scan_source.h"

#include <set>

#include "expr/evaluate.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
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
  return open_csv_split(scan_.splits.at(static_cast<size_t>(p)), scan_.schema, options_, batch_rows,
                        filter_);
}

std::string CsvSource::describe() const {
  std::string out = describe_splits("CsvScan", pattern_, scan_.splits);
  if (filter_predicate_)
    out += ", other columns parsed only where " + to_string(*filter_predicate_);
  return out;
}

std::shared_ptr<const Source> CsvSource::with_filter(const ExprPtr& predicate) const {
  // A UDF would run twice (here and in the filter above): only built-in expressions.
  if (calls_udf(*predicate)) return nullptr;
  std::set<std::string> used;
  referenced_columns(*predicate, used);
  auto filter = std::make_shared<CsvRowFilter>();
  for (int c = 0; c < scan_.schema.num_fields(); ++c)
    if (used.count(scan_.schema.field(c).name)) filter->columns.push_back(c);
  if (filter->columns.size() != used.size()) return nullptr;
  filter->keep = [predicate](const Batch& batch, std::vector<uint8_t>& keep) {
    const Column mask = evaluate(*predicate, batch);
    keep.assign(static_cast<size_t>(batch.num_rows()), 0);
    for (int64_t i = 0; i < batch.num_rows(); ++i)
      keep[static_cast<size_t>(i)] = !mask.is_null(i) && mask.value<bool>(i);
  };
  auto narrowed = std::make_shared<CsvSource>(*this);
  narrowed->filter_predicate_ = predicate;
  narrowed->filter_ = std::move(filter);
  return narrowed;
}

std::vector<std::string> CsvSource::files() const { return files_of(scan_.splits); }

JsonlSource::JsonlSource(std::string pattern, JsonlOptions options)
    : pattern_(std::move(pattern)),
      options_(options),
      scan_(plan_jsonl_scan(pattern_, options.split_bytes, options.infer_rows, options.storage)) {}

std::unique_ptr<BatchReader> JsonlSource::open(int p, int64_t batch_rows) const {
  return open_jsonl_split(scan_.splits.at(static_cast<size_t>(p)), scan_.schema, batch_rows);
}

std::string JsonlSource::describe() const {
  return describe_splits("JsonlScan", pattern_, scan_.splits);
}

std::vector<std::string> JsonlSource::files() const { return files_of(scan_.splits); }

}  // namespace ember
