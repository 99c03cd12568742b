// Translation of an optimized logical plan into pipelines: one rule per logical node kind.
#pragma once

#include <cstdint>

#include "exec/physical_plan.h"
#include "plan/logical_node.h"

namespace ember {

/// A join that a cluster of `ranks` runs as a hash exchange of both sides (docs/cluster.md):
/// each side's pipeline ends in a ShuffleSink, and a BucketJoinSource on rank `rank` reads its
/// joined buckets. `join` is a node of the plan being translated.
struct ShuffleChoice {
  const LogicalNode* join = nullptr;
  int ranks = 1;
  int rank = 0;
  int per_rank = 4;           ///< buckets per rank
  int64_t memory_budget = 0;  ///< what one bucket's join may hold (0: no limit)
};

/// Translates an optimized logical plan (see plan/optimizer.h). Throws Error for a node kind
/// without a rule (a broken invariant). With `shuffle` (its join set), that join is planned as
/// a hash exchange of both sides (PhysicalPlan::shuffle).
PhysicalPlan plan_physical(const LogicalNode& optimized, const ShuffleChoice& shuffle = {});

/// The index of the pipeline of `plan` (planned from `optimized`) that reads the plan's leftmost
/// source: its first pipeline, or, under joins, their probe side (the pipelines before it
/// build the joins' right sides); under a join run as a hash exchange, the one that reads its
/// joined buckets. The one the cluster runner spreads over the ranks.
size_t leftmost_pipeline(const LogicalNode& optimized, const PhysicalPlan& plan);

}  // namespace ember
