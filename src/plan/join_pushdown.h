// Rewrites around joins: filters pushed to the side they read, and stateful UDF pools moved
// above the joins that drop rows, so that the model runs only on the rows the join keeps.
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
///
/// An inner or right join may repeat a left row (one per match), so it stays above the pool;
/// a semi join on the same keys goes below the pool instead, so that the UDF runs once per left
/// row that will find a match and never on one the join drops. The right side is then read
/// twice (once per hash table), so this is done only when it holds no pool of its own.
NodePtr place_pools_after_joins(const NodePtr& plan);

}  // namespace ember
