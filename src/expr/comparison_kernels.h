// Vectorised comparisons: == != < <= > >= producing bit-packed bool columns.
#pragma once

#include "expr/expr_node.h"
#include "expr/operand.h"

namespace ember {

/// `a op b` over n rows. Operands are both numeric (int64 vs float64 compares as float64), both
/// utf8 (bytewise) or both bool (false < true), and not both scalar. Null in, null out.
Column compare(BinaryOp op, const Operand& a, const Operand& b, int64_t n);

}  // namespace ember
