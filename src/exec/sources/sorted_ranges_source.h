// The output of a sort that fit in memory, as a source: partition p holds one range of keys,
// merged from every run's slice of that range as it is read. The merge and its copy then run
// on the next pipeline's threads, a range each, instead of all at once on one thread.
#pragma once

#include <string>
#include <vector>

#include "exec/relational/row_order.h"
#include "exec/relational/sorted_run.h"
#include "plan/source.h"

namespace ember {

class SortedRangesSource final : public Source {
 public:
  /// `runs` in input order (ties go to the earlier run, so the sort stays stable), cut into
  /// about `partitions` ranges of near-equal rows (fewer when many keys are equal).
  SortedRangesSource(Schema schema, std::vector<SortedRun> runs, std::vector<KeyOrder> order,
                     int partitions, std::string label);
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return static_cast<int>(cuts_.size()) - 1; }
  /// The rows of range `p` in key order; may be opened again.
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  /// Where to cut every run so that the rows before the cut are those before row `row` of run
  /// `run` in the merged order.
  std::vector<int64_t> cut_before(size_t run, int64_t row) const;

  Schema schema_;
  std::vector<SortedRun> runs_;
  std::vector<KeyOrder> order_;
  std::string label_;
  int64_t rows_ = 0;
  /// cuts_[p][r]: the first row of run r in range p; cuts_.back(): each run's length.
  std::vector<std::vector<int64_t>> cuts_;
};

}  // namespace ember
