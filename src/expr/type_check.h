// Plan-time typing of expressions.
#pragma once

#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

/// The result type of `e` over `input`. Throws TypeError naming the expression and the types,
/// or InvalidArgument naming an unknown column and listing the columns that exist.
DataType infer_type(const ExprNode& e, const Schema& input);
/// The result type of an expression given to agg(): an aggregate, possibly aliased, over a
/// row expression. InvalidArgument for anything else, TypeError for a type the function
/// does not take (e.g. sum() of utf8).
DataType infer_aggregate_type(const ExprNode& e, const Schema& input);

}  // namespace ember
