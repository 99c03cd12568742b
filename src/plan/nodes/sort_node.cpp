// A sort node: the schema of its input; keys are type-checked when made.
#include "plan/nodes/sort_node.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/expression_columns.h"

namespace ember {

std::string describe_sort_keys(const std::vector<SortSpec>& keys) {
  std::string out;
  for (const auto& k : keys) {
    if (!out.empty()) out += ", ";
    out += to_string(*k.expr);
    if (k.descending) out += " DESC";
    if (k.nulls_first) out += " NULLS FIRST";
  }
  return out;
}

void check_sort_keys(const std::vector<SortSpec>& keys, const Schema& input, const char* op) {
  if (keys.empty()) throw InvalidArgument(std::string(op) + " needs at least one sort key");
  // Any type orders (lists item by item); inferring the type checks the key's columns.
  for (const auto& k : keys) (void)infer_type(*k.expr, input);
}

std::string SortNode::describe() const { return "Sort " + describe_sort_keys(keys); }

NodePtr SortNode::with_children(std::vector<NodePtr> children) const {
  return make_sort(std::move(children.at(0)), keys);
}

ColumnSet SortNode::required_input(const ColumnSet& required) const {
  ColumnSet out = required;
  for (const auto& k : keys) referenced_columns(*k.expr, out);
  return out;
}

std::vector<ExprPtr> SortNode::expressions() const {
  std::vector<ExprPtr> out;
  for (const auto& k : keys) out.push_back(k.expr);
  return out;
}

NodePtr SortNode::with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const {
  std::vector<SortSpec> new_keys = keys;
  for (size_t i = 0; i < new_keys.size(); ++i) new_keys[i].expr = exprs.at(i);
  return make_sort(std::move(input), std::move(new_keys));
}

NodePtr make_sort(NodePtr input, std::vector<SortSpec> keys) {
  check_sort_keys(keys, input->schema, "sort");
  auto n = std::make_shared<SortNode>();
  n->schema = input->schema;
  n->keys = std::move(keys);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
