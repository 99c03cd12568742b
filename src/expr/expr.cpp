// Building expression trees: ember::Expr and its operators.
#include <memory>
#include <string>

#include "expr/expr_access.h"
#include "expr/expr_node.h"
#include "expr/expr_text.h"

namespace ember {

namespace {

Expr make(ExprNode node) {
  return detail::ExprAccess::make(std::make_shared<const ExprNode>(std::move(node)));
}

Expr binary(BinaryOp op, const Expr& a, const Expr& b) {
  ExprNode n;
  n.kind = ExprKind::Binary;
  n.binary = op;
  n.children = {detail::ExprAccess::node(a), detail::ExprAccess::node(b)};
  return make(std::move(n));
}

Expr unary(UnaryOp op, const Expr& a) {
  ExprNode n;
  n.kind = ExprKind::Unary;
  n.unary = op;
  n.children = {detail::ExprAccess::node(a)};
  return make(std::move(n));
}

Expr aggregate(AggFunc f, const ExprPtr& input) {
  ExprNode n;
  n.kind = ExprKind::Aggregate;
  n.agg = f;
  n.children = {input};
  return make(std::move(n));
}

}  // namespace

Expr Expr::alias(std::string name) const {
  ExprNode n;
  n.kind = ExprKind::Alias;
  n.name = std::move(name);
  n.children = {node_};
  return make(std::move(n));
}

Expr Expr::cast(DataType to) const {
  ExprNode n;
  n.kind = ExprKind::Cast;
  n.cast_to = std::move(to);
  n.children = {node_};
  return make(std::move(n));
}

Expr Expr::is_null() const {
  ExprNode n;
  n.kind = ExprKind::IsNull;
  n.children = {node_};
  return make(std::move(n));
}

Expr Expr::list_size() const {
  ExprNode n;
  n.kind = ExprKind::ListSize;
  n.children = {node_};
  return make(std::move(n));
}

Expr Expr::list_get(int64_t i) const {
  ExprNode n;
  n.kind = ExprKind::ListGet;
  n.index = i;
  n.children = {node_};
  return make(std::move(n));
}

Expr Expr::sum() const { return aggregate(AggFunc::Sum, node_); }
Expr Expr::count() const { return aggregate(AggFunc::Count, node_); }
Expr Expr::min() const { return aggregate(AggFunc::Min, node_); }
Expr Expr::max() const { return aggregate(AggFunc::Max, node_); }
Expr Expr::mean() const { return aggregate(AggFunc::Mean, node_); }

// Relational aggregates.
Expr Expr::count_distinct() const { return aggregate(AggFunc::CountDistinct, node_); }
Expr Expr::list() const { return aggregate(AggFunc::List, node_); }
Expr Expr::first() const { return aggregate(AggFunc::First, node_); }

std::string Expr::to_string() const { return ember::to_string(*node_); }

Expr col(std::string name) {
  ExprNode n;
  n.kind = ExprKind::Column;
  n.name = std::move(name);
  return make(std::move(n));
}

Expr lit(Value v) {
  ExprNode n;
  n.kind = ExprKind::Literal;
  n.literal = std::move(v);
  return make(std::move(n));
}

Expr operator+(const Expr& a, const Expr& b) { return binary(BinaryOp::Add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return binary(BinaryOp::Sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return binary(BinaryOp::Mul, a, b); }
Expr operator/(const Expr& a, const Expr& b) { return binary(BinaryOp::Div, a, b); }
Expr operator%(const Expr& a, const Expr& b) { return binary(BinaryOp::Mod, a, b); }
Expr operator==(const Expr& a, const Expr& b) { return binary(BinaryOp::Eq, a, b); }
Expr operator!=(const Expr& a, const Expr& b) { return binary(BinaryOp::Ne, a, b); }
Expr operator<(const Expr& a, const Expr& b) { return binary(BinaryOp::Lt, a, b); }
Expr operator<=(const Expr& a, const Expr& b) { return binary(BinaryOp::Le, a, b); }
Expr operator>(const Expr& a, const Expr& b) { return binary(BinaryOp::Gt, a, b); }
Expr operator>=(const Expr& a, const Expr& b) { return binary(BinaryOp::Ge, a, b); }
Expr operator&&(const Expr& a, const Expr& b) { return binary(BinaryOp::And, a, b); }
Expr operator||(const Expr& a, const Expr& b) { return binary(BinaryOp::Or, a, b); }
Expr operator!(const Expr& a) { return unary(UnaryOp::Not, a); }
Expr operator-(const Expr& a) { return unary(UnaryOp::Negate, a); }

}  // namespace ember
