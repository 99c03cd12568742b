// Plan-time typing of expressions.
#pragma once

#include <set>
#include <string>

#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

/// The result type of `e` over `input`. Throws TypeError naming the expression and the types,
/// or InvalidArgument naming an unknown column and listing the columns that exist.
DataType infer_type(const ExprNode& e, const Schema& input);
/// The aggregate inside `e` (under any aliases); InvalidArgument when `e` is not one.
const ExprNode& aggregate_of(const ExprNode& e);
/// The result type of an expression given to agg(): an aggregate, possibly aliased, over a
/// row expression. InvalidArgument for anything else, TypeError for a type the function
/// does not take (e.g. sum() of utf8).
DataType infer_aggregate_type(const ExprNode& e, const Schema& input);
/// The column name a projection of `e` produces: alias, column name, UDF name, or to_string.
std::string output_name(const ExprNode& e);
/// Names of every column `e` reads.
void referenced_columns(const ExprNode& e, std::set<std::string>& out);
/// True if `e` contains a stateful UDF call.
bool contains_stateful_udf(const ExprNode& e);
std::string to_string(const ExprNode& e);

}  // namespace ember
