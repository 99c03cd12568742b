// Vectorised boolean logic with Kleene (three-valued) semantics, negation and null tests.
#pragma once

#include "expr/expr_node.h"
#include "expr/operand.h"

namespace ember {

/// `a && b` or `a || b` over n rows: false && null = false, true || null = true, otherwise null
/// in gives null out. Operands are bool (a null scalar is unknown), not both scalar.
Column logical(BinaryOp op, const Operand& a, const Operand& b, int64_t n);

/// `!c` for a bool column.
Column logical_not(const Column& c);

/// True where `c` is null; never null itself.
Column is_null_mask(const Column& c);

}  // namespace ember
