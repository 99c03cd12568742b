// Rewrites a logical plan into the form the executor runs.
#pragma once

#include "plan/logical_plan.h"

namespace ember {

/// 1. Moves every stateful UDF call into its own ActorPoolProject node (arguments that are not
///    plain columns are computed by a projection below it; other columns pass through).
/// 2. Pushes filters below projections and actor pools when they do not read what those
///    compute, so fewer rows reach the UDFs.
/// 3. Pushes limits below row-preserving projections and actor pools, so a limit stops feeding
///    a pool early.
/// 4. Prunes columns nothing reads (see column_pruning.h).
NodePtr optimize(const NodePtr& plan);

/// The ActorPoolProject nodes of an optimized plan, in execution order (bottom-up).
std::vector<const LogicalNode*> actor_pool_nodes(const LogicalNode& plan);

}  // namespace ember
