// Rewrites around joins: filters pushed to the side they read, and stateful UDF pools moved
// above semi and anti joins so that the model runs on the rows the join keeps.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Each conjunct of a filter over a join goes below it, to the side whose columns it reads,
/// where that keeps the join's result (left side: inner, left, semi, anti; right side: inner,
/// right; a key under inner goes to both). The rest stays above.
NodePtr push_filters_into_joins(const NodePtr& plan);

/// A semi or anti join over a pool (possibly under projections that pass the keys through, and
/// filters) runs below the pool instead, when the pool's result is not a key: those joins only drop
/// rows, so the UDF then runs on fewer rows and never on one the join removes.
NodePtr place_pools_after_joins(const NodePtr& plan);

}  // namespace ember
