// A breaker's result saved by a resumable write, read back as the source of the pipeline that
// ends in the write: one Arrow IPC file whose record batches are the partitions, in order.
#pragma once

#include <string>
#include <vector>

#include "io/arrow/arrow_scan.h"
#include "plan/source.h"

namespace ember {

/// Partition p is the file's record batches from the sum of `batches[0..p)` on, `batches[p]` of
/// them: the partitions the saving run read, row for row, so a rerun's partition p is that run's.
class SavedResultSource final : public Source {
 public:
  /// Reads the file's footer. IoError naming the file when it cannot be read or does not hold
  /// the record batches `batches` adds up to; ParseError for a malformed file.
  SavedResultSource(std::string path, std::vector<int64_t> batches, std::string label);
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(batches_.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  std::string path_;
  std::vector<int64_t> batches_;
  std::vector<int64_t> first_;  ///< per partition: its first record batch
  std::string label_;
  ArrowScan scan_;
};

}  // namespace ember
