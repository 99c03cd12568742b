// Rewrite: filters move below the nodes they do not depend on, so fewer rows reach the UDFs.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Moves each filter below every node whose filter_passthrough() covers the columns the
/// predicate reads (renaming them to the node's input names), as far down as it goes.
NodePtr push_down_filters(const NodePtr& plan);

}  // namespace ember
