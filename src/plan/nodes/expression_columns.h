// The output of nodes that compute one column per expression (projections, aggregates).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

/// One field per expression, typed by `infer` over `input`. Throws InvalidArgument when two
/// expressions have the same output name; `op` names the user's method in that message.
Schema expression_columns(const std::vector<ExprPtr>& exprs, const Schema& input, const char* op,
                          DataType (*infer)(const ExprNode&, const Schema&));

/// "a, (b + 1) AS c" for explain().
std::string describe_expressions(const std::vector<ExprPtr>& exprs);

/// The columns the expressions read.
std::set<std::string> columns_read(const std::vector<ExprPtr>& exprs);

}  // namespace ember
