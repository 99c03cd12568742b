// Vectorised evaluation of an expression over a whole batch.
#pragma once

#include "ember/batch.h"
#include "expr/expr_node.h"

namespace ember {

/// Evaluates `e` over every row of `input` (one kernel call per node, no per-row dispatch).
/// Stateless UDF calls run inline in chunks of their batch_size; a stateful UDF call here is an
/// internal error (the planner moves them into ActorPoolProject nodes).
/// A literal evaluates to a column of input.num_rows() copies.
Column evaluate(const ExprNode& e, const Batch& input);

}  // namespace ember
