// The output of an external sort as a source: one partition that merges the sorted runs (most
// of them on disk) as it is read, so the sorted rows never need to fit in memory together.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/relational/run_merge.h"
#include "plan/source.h"

namespace ember {

/// Read once: its runs (spill files among them) go to the first open(), and the files are
/// removed as the reader finishes with them or is destroyed.
class MergeSource final : public Source {
 public:
  MergeSource(Schema schema, std::vector<std::unique_ptr<RunChunks>> runs,
              std::vector<KeyOrder> order, int64_t rows, std::string label);
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return 1; }
  /// Partition 0, once; Error on a second open.
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  Schema schema_;
  std::vector<KeyOrder> order_;
  int64_t rows_;
  size_t num_runs_;
  std::string label_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<RunChunks>> runs_;  ///< guarded by mu_; taken by open()
  mutable bool opened_ = false;                           ///< guarded by mu_
};

}  // namespace ember
