// In-memory batches as a source: from_table(), and the output of a pipeline breaker.
#pragma once

#include <vector>

#include "plan/source.h"

namespace ember {

class TableSource : public Source {
 public:
  /// Cuts the table's rows into `num_partitions` contiguous, near-equal partitions.
  TableSource(const Table& table, int num_partitions, std::string label = "InMemoryTable");
  /// Takes partitions as they are.
  TableSource(Schema schema, std::vector<std::vector<Batch>> partitions, std::string label);
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return static_cast<int>(parts_.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  // What it was made from (the cluster runner sends the same partitions to another rank).
  const std::vector<std::vector<Batch>>& partitions() const { return parts_; }
  const std::string& label() const { return label_; }
  void accept(SourceVisitor& v) const override { v.visit(*this); }

 private:
  Schema schema_;
  std::vector<std::vector<Batch>> parts_;
  std::string label_;
  int64_t rows_ = 0;
};

}  // namespace ember
