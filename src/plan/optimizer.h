// Rewrites a logical plan into the form the executor runs.
#pragma once

#include "plan/logical_plan.h"

namespace ember {

/// 1. Moves every stateful UDF call into its own ActorPoolProject node (actor_pool_extraction.h).
/// 2. Pushes filters below projections and actor pools when they do not read what those
///    compute, so fewer rows reach the UDFs (filter_pushdown.h).
/// 3. Pushes limits below row-preserving projections and actor pools, so a limit stops feeding
///    a pool early (limit_pushdown.h).
/// 4. Prunes columns nothing reads (column_pruning.h).
NodePtr optimize(const NodePtr& plan);

}  // namespace ember
