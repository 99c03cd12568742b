// Structural questions about expression trees, asked by the planner and the evaluator.
#include "expr/expr_tree.h"

#include "ember/error.h"
#include "expr/expr_text.h"

namespace ember {

const ExprNode& aggregate_of(const ExprNode& e) {
  const ExprNode* inner = &e;
  while (inner->kind == ExprKind::Alias) inner = inner->children[0].get();
  if (inner->kind != ExprKind::Aggregate) {
    throw InvalidArgument("agg() takes aggregate expressions such as col(\"x\").sum(); got " +
                          to_string(e));
  }
  return *inner;
}

std::string output_name(const ExprNode& e) {
  switch (e.kind) {
    case ExprKind::Alias:
    case ExprKind::Column:
      return e.name;
    case ExprKind::UdfCall:
      if (e.udf) return e.udf->udf_name();
      break;
    case ExprKind::Aggregate:
      return output_name(*e.children[0]);
    default:
      break;
  }
  return to_string(e);
}

void referenced_columns(const ExprNode& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::Column) out.insert(e.name);
  for (const ExprPtr& c : e.children) referenced_columns(*c, out);
}

bool contains_stateful_udf(const ExprNode& e) {
  if (e.kind == ExprKind::UdfCall && e.udf && e.udf->is_stateful()) return true;
  for (const ExprPtr& c : e.children) {
    if (contains_stateful_udf(*c)) return true;
  }
  return false;
}

bool is_lifted_call(const ExprNode& e) {
  return (e.kind == ExprKind::UdfCall && e.udf && e.udf->is_stateful()) ||
         (e.kind == ExprKind::Function && e.function == FunctionId::UrlDownload);
}

bool contains_lifted_call(const ExprNode& e) {
  if (is_lifted_call(e)) return true;
  for (const ExprPtr& c : e.children) {
    if (contains_lifted_call(*c)) return true;
  }
  return false;
}

bool calls_udf(const ExprNode& e) {
  if (e.kind == ExprKind::UdfCall) return true;
  for (const ExprPtr& c : e.children)
    if (calls_udf(*c)) return true;
  return false;
}

}  // namespace ember
