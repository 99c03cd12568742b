// Udf::operator(): turning a Udf into a call expression. In plan, the lowest layer that sees
// both the expression tree (expr) and the UDF's settings (udf), which know nothing of each other.
#include "ember/udf.h"
#include "expr/expr_access.h"
#include "expr/expr_node.h"
#include "udf/udf_access.h"
#include "udf/udf_spec.h"

namespace ember::detail {

Expr call_udf(const Udf& udf, std::vector<Expr> args) {
  const std::shared_ptr<const UdfSpec>& spec = UdfAccess::spec(udf);
  if (!spec->return_type)
    throw InvalidArgument("udf '" + spec->name + "' has no return type: call .returns(...)");
  auto node = std::make_shared<ExprNode>();
  node->kind = ExprKind::UdfCall;
  node->udf = spec;
  node->children.reserve(args.size());
  for (const Expr& e : args) node->children.push_back(ExprAccess::node(e));
  return ExprAccess::make(std::move(node));
}

}  // namespace ember::detail
