// A projection node: schema from its expressions; pruning drops the ones nobody reads.
#include "plan/nodes/project_node.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/expression_columns.h"

namespace ember {

std::string ProjectNode::describe() const { return "Project " + describe_expressions(exprs); }

NodePtr ProjectNode::with_children(std::vector<NodePtr> children) const {
  return make_project(std::move(children.at(0)), exprs);
}

ColumnSet ProjectNode::required_input(const ColumnSet&) const { return columns_read(exprs); }

NodePtr ProjectNode::without_unused_outputs(const ColumnSet& required) const {
  std::vector<ExprPtr> kept;
  for (const auto& e : exprs)
    if (required.count(output_name(*e))) kept.push_back(e);
  if (kept.size() == exprs.size()) return shared_from_this();
  // A projection with no columns would lose the row count: keep one.
  if (kept.empty()) kept.push_back(exprs.front());
  return make_project(children.at(0), std::move(kept));
}

NodePtr ProjectNode::with_expressions(NodePtr input, std::vector<ExprPtr> new_exprs) const {
  return make_project(std::move(input), std::move(new_exprs));
}

std::optional<std::map<std::string, std::string>> ProjectNode::filter_passthrough() const {
  // col(x) and col(x).alias(y) pass a column through unchanged.
  std::map<std::string, std::string> out;
  for (const auto& e : exprs) {
    const ExprNode* inner = e.get();
    while (inner->kind == ExprKind::Alias) inner = inner->children[0].get();
    if (inner->kind == ExprKind::Column) out[output_name(*e)] = inner->name;
  }
  return out;
}

NodePtr make_project(NodePtr input, std::vector<ExprPtr> exprs) {
  if (exprs.empty()) throw InvalidArgument("select needs at least one expression");
  auto n = std::make_shared<ProjectNode>();
  n->schema = expression_columns(exprs, input->schema, "select", infer_type);
  n->exprs = std::move(exprs);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
