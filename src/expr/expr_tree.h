// Structural questions about expression trees: names, referenced columns, what they contain.
#pragma once

#include <set>
#include <string>

#include "expr/expr_node.h"

namespace ember {

/// The aggregate inside `e` (under any aliases); InvalidArgument when `e` is not one.
const ExprNode& aggregate_of(const ExprNode& e);
/// The column name a projection of `e` produces: alias, column name, UDF name, or to_string.
std::string output_name(const ExprNode& e);
/// Names of every column `e` reads.
void referenced_columns(const ExprNode& e, std::set<std::string>& out);
/// True if `e` contains a stateful UDF call.
bool contains_stateful_udf(const ExprNode& e);
/// A call the planner lifts out of expressions into an operator of its own: a stateful UDF
/// call (an actor pool) or a url_download (the download operator).
bool is_lifted_call(const ExprNode& e);
/// True if `e` holds a lifted call anywhere.
bool contains_lifted_call(const ExprNode& e);
/// True if `e` calls any UDF, stateless ones included.
bool calls_udf(const ExprNode& e);

}  // namespace ember
