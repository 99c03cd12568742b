// Expression trees as text, for Expr::to_string, plans and error messages.
#pragma once

#include <string>

#include "expr/expr_node.h"

namespace ember {

/// "+", "==", "&&", ...
const char* to_string(BinaryOp op);
/// "sum", "count", ...
const char* to_string(AggFunc f);
/// The expression as it would be written, e.g. "((id * 3) + 1)".
std::string to_string(const ExprNode& e);

}  // namespace ember
