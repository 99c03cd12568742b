// Building expression trees (ember::Expr and its operators) and rendering them as text.
#include <memory>
#include <string>

#include "expr/expr_node.h"
#include "expr/type_check.h"
#include "udf/udf_spec.h"

namespace ember {

namespace {

Expr make(ExprNode node) { return Expr(std::make_shared<const ExprNode>(std::move(node))); }

Expr binary(BinaryOp op, const Expr& a, const Expr& b) {
  ExprNode n;
  n.kind = ExprKind::Binary;
  n.binary = op;
  n.children = {a.node(), b.node()};
  return make(std::move(n));
}

Expr unary(UnaryOp op, const Expr& a) {
  ExprNode n;
  n.kind = ExprKind::Unary;
  n.unary = op;
  n.children = {a.node()};
  return make(std::move(n));
}

Expr aggregate(AggFunc f, const ExprPtr& input) {
  ExprNode n;
  n.kind = ExprKind::Aggregate;
  n.agg = f;
  n.children = {input};
  return make(std::move(n));
}

// A string literal as it would be written: double-quoted with \" and \\ escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::And:
      return "&&";
    case BinaryOp::Or:
      return "||";
  }
  return "?";
}

const char* to_string(AggFunc f) {
  switch (f) {
    case AggFunc::Sum:
      return "sum";
    case AggFunc::Count:
      return "count";
    case AggFunc::Min:
      return "min";
    case AggFunc::Max:
      return "max";
    case AggFunc::Mean:
      return "mean";
  }
  return "?";
}

std::string to_string(const ExprNode& e) {
  switch (e.kind) {
    case ExprKind::Column:
      return e.name;
    case ExprKind::Literal:
      if (auto* s = std::get_if<std::string>(&e.literal)) return quoted(*s);
      return to_string(e.literal);
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert in the two cases below
// (GCC bug 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
    case ExprKind::Binary:
      return "(" + to_string(*e.children[0]) + " " + to_string(e.binary) + " " +
             to_string(*e.children[1]) + ")";
    case ExprKind::Unary:
      return (e.unary == UnaryOp::Not ? "!" : "-") + to_string(*e.children[0]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    case ExprKind::Cast:
      return to_string(*e.children[0]) + ".cast(" + e.cast_to.to_string() + ")";
    case ExprKind::IsNull:
      return to_string(*e.children[0]) + ".is_null()";
    case ExprKind::Alias:
      return to_string(*e.children[0]) + ".alias(" + quoted(e.name) + ")";
    case ExprKind::UdfCall: {
      std::string out = (e.udf ? e.udf->name : std::string("udf")) + "(";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out += ", ";
        out += to_string(*e.children[i]);
      }
      return out + ")";
    }
    case ExprKind::Aggregate:
      return to_string(*e.children[0]) + "." + to_string(e.agg) + "()";
  }
  return "?";
}

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

Expr Expr::sum() const { return aggregate(AggFunc::Sum, node_); }
Expr Expr::count() const { return aggregate(AggFunc::Count, node_); }
Expr Expr::min() const { return aggregate(AggFunc::Min, node_); }
Expr Expr::max() const { return aggregate(AggFunc::Max, node_); }
Expr Expr::mean() const { return aggregate(AggFunc::Mean, node_); }

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
