// Evaluating a call of the expression library over a batch.
#pragma once

#include "ember/batch.h"
#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// The Function node `e` over `input`: its arguments evaluated, typed and cast to what the
/// function takes, then one kernel over whole columns.
Column evaluate_function(const ExprNode& e, const Batch& input);

}  // namespace ember
