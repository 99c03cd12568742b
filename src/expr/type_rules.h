// The typing rules of operators and casts, shared by plan-time checking and evaluation.
#pragma once

#include <optional>

#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

enum class OpClass { Arithmetic, Comparison, Logical };

/// Which family a binary operator belongs to.
OpClass op_class(BinaryOp op);

/// Result type of `l op r`, or nullopt when the operator does not apply to these types.
/// A Null operand takes the other side's type first; two Nulls give Null.
std::optional<DataType> binary_result_type(BinaryOp op, const DataType& l, const DataType& r);

/// Result type of a unary operator, or nullopt when it does not apply.
std::optional<DataType> unary_result_type(UnaryOp op, const DataType& t);

/// Whether `from` can be cast to `to` (among bool, int64, float64, utf8; Null casts to any).
bool can_cast(const DataType& from, const DataType& to);

/// "cannot apply '+' to utf8 and int64 in (name + 1)".
[[noreturn]] void throw_binary_type_error(const ExprNode& e, const DataType& l, const DataType& r);
/// "cannot apply '!' to int64 in !id".
[[noreturn]] void throw_unary_type_error(const ExprNode& e, const DataType& t);
/// "cannot cast list<int64> to utf8 in xs.cast(utf8)".
[[noreturn]] void throw_cast_type_error(const ExprNode& e, const DataType& from);

}  // namespace ember
