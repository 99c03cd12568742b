// CSV and JSON-lines scans: each file split is a partition.
#pragma once

#include "ember/csv_options.h"
#include "ember/jsonl_options.h"
#include "io/csv/csv_row_filter.h"
#include "io/csv/csv_scan.h"
#include "io/jsonl/jsonl_scan.h"
#include "plan/source.h"

namespace ember {

class CsvSource : public Source {
 public:
  CsvSource(std::string pattern, CsvOptions options);
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(scan_.splits.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit(*this); }
  std::vector<std::string> files() const override;
  /// This scan dropping the rows `predicate` rejects as it parses them, before parsing their
  /// other columns (late materialisation); null when the predicate calls a UDF.
  std::shared_ptr<const Source> with_filter(const ExprPtr& predicate) const override;
  /// What it was made from (the cluster runner makes the same scan on another rank).
  const std::string& pattern() const { return pattern_; }
  const CsvOptions& options() const { return options_; }
  /// The predicate rows are filtered by while parsing (with_filter), or null.
  const ExprPtr& filter_predicate() const { return filter_predicate_; }

 private:
  std::string pattern_;
  CsvOptions options_;
  CsvScan scan_;
  ExprPtr filter_predicate_;                    ///< null: no filter while parsing
  std::shared_ptr<const CsvRowFilter> filter_;  ///< built from it
};

class JsonlSource : public Source {
 public:
  JsonlSource(std::string pattern, JsonlOptions options);
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(scan_.splits.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit(*this); }
  std::vector<std::string> files() const override;
  const std::string& pattern() const { return pattern_; }  ///< what it was made from
  const JsonlOptions& options() const { return options_; }

 private:
  std::string pattern_;
  JsonlOptions options_;
  JsonlScan scan_;
};

}  // namespace ember
