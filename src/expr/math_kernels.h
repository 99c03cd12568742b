// Math functions over whole numeric columns: abs, round, floor, ceil, sqrt, exp, log, log10,
// pow, clip, sign.
#pragma once

#include <vector>

#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// The math function of `e` over `args`, already cast to `type` (int64 or float64), the
/// function's result type except for sqrt/exp/log/log10/pow, whose arguments are float64.
Column math_function(const ExprNode& e, const std::vector<Column>& args, const DataType& type);

}  // namespace ember
