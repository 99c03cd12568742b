// The expression tree behind ember::Expr: plain immutable data.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/expr.h"
#include "ember/types.h"

namespace ember {

struct UdfSpec;

enum class ExprKind { Column, Literal, Binary, Unary, Cast, IsNull, Alias, UdfCall, Aggregate };
enum class BinaryOp { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or };
enum class UnaryOp { Not, Negate };
/// Aggregate functions, valid only as the top of an expression given to DataFrame::agg.
enum class AggFunc { Sum, Count, Min, Max, Mean };

using ExprPtr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind = ExprKind::Literal;
  std::string name;       ///< Column: the column; Alias: the new name
  Value literal;          ///< Literal
  BinaryOp binary = BinaryOp::Add;
  UnaryOp unary = UnaryOp::Not;
  AggFunc agg = AggFunc::Sum;  ///< Aggregate
  DataType cast_to;       ///< Cast
  std::vector<ExprPtr> children;  ///< operands / UDF arguments
  std::shared_ptr<const UdfSpec> udf;  ///< UdfCall
};

/// "+", "==", "&&", ...
const char* to_string(BinaryOp op);
/// "sum", "count", ...
const char* to_string(AggFunc f);

}  // namespace ember
