// Column pruning: computed columns that nothing above reads are not computed at all.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Rewrites `plan` so that every projection computes only the columns that some node above it
/// reads (or the query outputs), and actor pools carry only those columns through. Row counts,
/// output columns and every actor pool stay as they were.
NodePtr prune_columns(const NodePtr& plan);

}  // namespace ember
