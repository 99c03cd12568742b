// Rewrite: limits move below row-preserving nodes, so a limit stops feeding a pool early.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Merges a limit over a limit into the smaller one, and moves each limit below every node
/// that preserves_rows(): limiting first computes the same rows and feeds the UDFs fewer.
NodePtr push_down_limits(const NodePtr& plan);

}  // namespace ember
