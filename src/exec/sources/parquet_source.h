// The Parquet scan as a Source: one partition per row group, only the columns the query reads,
// and row groups whose statistics rule out a filter skipped.
#pragma once

#include <string>

#include "ember/parquet_options.h"
#include "io/parquet/parquet_scan.h"
#include "plan/source.h"

namespace ember {

class ParquetSource : public Source {
 public:
  ParquetSource(std::string pattern, ParquetOptions options);
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(scan_.parts.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  std::vector<std::string> files() const override;
  std::shared_ptr<const Source> with_columns(const std::set<std::string>& columns) const override;
  std::shared_ptr<const Source> with_filter(const ExprPtr& predicate) const override;

 private:
  ParquetSource() = default;
  std::string pattern_;
  ParquetScan scan_;
  int64_t skipped_ = 0;  ///< row groups ruled out by statistics
};

}  // namespace ember
