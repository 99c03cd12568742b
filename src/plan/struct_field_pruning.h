// Struct field pruning: a scan's struct column that the query reads only through some of its
// fields (`col("image").field("path")`) is read with only those fields, so a Parquet scan
// reads none of the other fields' bytes.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Rewrites `plan` so that each source that can narrow its struct columns (with_struct_fields)
/// reads only the fields the nodes above it use. A column counts as used whole when any node
/// reads it other than through `.field(name)`, when it reaches the query's output, or when it
/// passes through a node this rule does not see through (a join, a sort, a repartition).
NodePtr prune_struct_fields(const NodePtr& plan);

}  // namespace ember
