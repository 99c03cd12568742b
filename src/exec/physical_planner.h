// Translation of an optimized logical plan into pipelines: one rule per logical node kind.
#pragma once

#include "exec/physical_plan.h"
#include "plan/logical_node.h"

namespace ember {

/// Translates an optimized logical plan (see plan/optimizer.h). Throws Error for a node kind
/// without a rule (a broken invariant).
PhysicalPlan plan_physical(const LogicalNode& optimized);

}  // namespace ember
