// A global aggregate node: one-row schema from its aggregate expressions.
#include "plan/nodes/aggregate_node.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/expression_columns.h"

namespace ember {

std::string AggregateNode::describe() const { return "Aggregate " + describe_expressions(exprs); }

NodePtr AggregateNode::with_children(std::vector<NodePtr> children) const {
  return make_aggregate(std::move(children.at(0)), exprs);
}

ColumnSet AggregateNode::required_input(const ColumnSet&) const { return columns_read(exprs); }

NodePtr AggregateNode::with_expressions(NodePtr input, std::vector<ExprPtr> new_exprs) const {
  return make_aggregate(std::move(input), std::move(new_exprs));
}

NodePtr make_aggregate(NodePtr input, std::vector<ExprPtr> aggregates) {
  if (aggregates.empty()) throw InvalidArgument("agg needs at least one aggregate expression");
  auto n = std::make_shared<AggregateNode>();
  n->schema = expression_columns(aggregates, input->schema, "agg", infer_aggregate_type);
  n->exprs = std::move(aggregates);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
