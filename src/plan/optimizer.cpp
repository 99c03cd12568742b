// The optimizer: the logical rewrites, in the order they help each other.
#include "plan/optimizer.h"

#include "plan/actor_pool_extraction.h"
#include "plan/column_pruning.h"
#include "plan/filter_pushdown.h"
#include "plan/join_pushdown.h"
#include "plan/limit_pushdown.h"
#include "plan/scan_filters.h"
#include "plan/struct_field_pruning.h"

namespace ember {

NodePtr optimize(const NodePtr& plan) {
  NodePtr p = extract_actor_pools(plan);
  p = push_down_filters(p);
  p = push_filters_into_joins(p);
  p = place_pools_after_joins(p);
  p = push_down_limits(p);
  p = prune_columns(p);
  p = push_filters_into_scans(p);
  p = prune_struct_fields(p);
  return p;
}

}  // namespace ember
