// A filter node: the schema of its input; the predicate is type-checked when made.
#include "plan/nodes/filter_node.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"

namespace ember {

std::string FilterNode::describe() const { return "Filter " + to_string(*predicate); }

NodePtr FilterNode::with_children(std::vector<NodePtr> children) const {
  return make_filter(std::move(children.at(0)), predicate);
}

ColumnSet FilterNode::required_input(const ColumnSet& required) const {
  ColumnSet below = required;
  referenced_columns(*predicate, below);
  return below;
}

NodePtr FilterNode::with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const {
  return make_filter(std::move(input), std::move(exprs.at(0)));
}

NodePtr make_filter(NodePtr input, ExprPtr predicate) {
  DataType t = infer_type(*predicate, input->schema);
  if (t.id() != TypeId::Boolean && t.id() != TypeId::Null)
    throw TypeError("where() needs a bool predicate, but " + to_string(*predicate) + " is " +
                    t.to_string());
  auto n = std::make_shared<FilterNode>();
  n->schema = input->schema;
  n->predicate = std::move(predicate);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
