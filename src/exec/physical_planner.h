// Translation of an optimized logical plan into pipelines: one rule per logical node kind.
#pragma once

#include "exec/physical_plan.h"
#include "plan/logical_node.h"

namespace ember {

/// Translates an optimized logical plan (see plan/optimizer.h). Throws Error for a node kind
/// without a rule (a broken invariant).
PhysicalPlan plan_physical(const LogicalNode& optimized);

/// The index of the pipeline of `plan` (planned from `optimized`) that reads the plan's leftmost
/// source: its first pipeline, or, under joins, their probe side (the pipelines before it
/// build the joins' right sides). The one the cluster runner spreads over the ranks.
size_t leftmost_pipeline(const LogicalNode& optimized, const PhysicalPlan& plan);

}  // namespace ember
