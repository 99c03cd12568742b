// The expression tree behind ember::Expr: plain immutable data.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/udf_handle.h"
#include "ember/expr.h"
#include "ember/types.h"
#include "expr/expr_access.h"
#include "expr/function_id.h"

namespace ember {

enum class ExprKind {
  Column,
  Literal,
  Binary,
  Unary,
  Cast,
  IsNull,
  Alias,
  UdfCall,
  Aggregate,
  ListSize,
  ListGet,
  Function  ///< a named function of the expression library (expr/function_catalog.h)
};
enum class BinaryOp { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or };
enum class UnaryOp { Not, Negate };
/// Aggregate functions, valid only as the top of an expression given to DataFrame::agg.
enum class AggFunc { Sum, Count, Min, Max, Mean, CountDistinct, First, List };

struct Expr::Node {
  ExprKind kind = ExprKind::Literal;
  std::string name;  ///< Column: the column; Alias: the new name
  Value literal;     ///< Literal
  BinaryOp binary = BinaryOp::Add;
  UnaryOp unary = UnaryOp::Not;
  AggFunc agg = AggFunc::Sum;                   ///< Aggregate
  DataType cast_to;                             ///< Cast
  int64_t index = 0;                            ///< ListGet
  FunctionId function = FunctionId::StrLength;  ///< Function
  std::vector<Value> params;  ///< Function: constant arguments (patterns, widths, values)
  std::vector<std::shared_ptr<const Node>> children;  ///< operands / UDF arguments
  std::shared_ptr<const UdfHandle> udf;               ///< UdfCall
};

/// A node of the tree behind an Expr.
using ExprNode = detail::ExprAccess::Node;
using ExprPtr = std::shared_ptr<const ExprNode>;

}  // namespace ember
