// Vectorised arithmetic: + - * / % and unary minus over int64 and float64 columns.
#pragma once

#include "expr/expr_node.h"
#include "expr/operand.h"

namespace ember {

/// `a op b` over n rows for an arithmetic op. Operands are numeric and not both scalar.
/// int64 op int64 is int64 (wrapping on overflow); otherwise float64. Integer / and % by zero
/// give null; INT64_MIN / -1 wraps to INT64_MIN and INT64_MIN % -1 is 0. Float / follows IEEE;
/// float % by zero gives null.
Column arithmetic(BinaryOp op, const Operand& a, const Operand& b, int64_t n);

/// Unary minus (int64 wraps: -INT64_MIN is INT64_MIN).
Column negate(const Column& c);

}  // namespace ember
