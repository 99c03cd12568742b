// The second half of a grace hash join: once the probe side has ended, each spilled key-hash
// partition is joined on its own, so that only one partition's build rows are in memory.
#pragma once

#include <memory>
#include <string>

#include "exec/relational/join_layout.h"
#include "exec/relational/join_spill.h"
#include "plan/source.h"

namespace ember {

/// JoinSpill::kPartitions partitions, partition q the join of the build and probe rows that
/// spilled to q (none at all when the build side fit in memory). Each is read once, after the
/// probe pipeline's own partitions ended; its files are removed when it has been read.
class GraceJoinSource final : public Source {
 public:
  GraceJoinSource(std::shared_ptr<JoinSpill> spill, JoinLayout layout)
      : spill_(std::move(spill)), layout_(std::move(layout)) {}
  const Schema& schema() const override { return layout_.output; }
  int num_partitions() const override { return JoinSpill::kPartitions; }
  /// Joined rows, then (right and full joins) the partition's unmatched build rows.
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }
  /// Where the join's rows spill (JoinSpill::spilled: whether they did).
  const std::shared_ptr<JoinSpill>& spill() const { return spill_; }

 private:
  std::shared_ptr<JoinSpill> spill_;
  JoinLayout layout_;
};

}  // namespace ember
