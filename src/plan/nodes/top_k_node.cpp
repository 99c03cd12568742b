// A top-k node: a sort that keeps only its first k rows.
#include "plan/nodes/top_k_node.h"

#include "ember/error.h"
#include "expr/expr_tree.h"

namespace ember {

std::string TopKNode::describe() const {
  return "TopK " + std::to_string(k) + " by " + describe_sort_keys(keys);
}

NodePtr TopKNode::with_children(std::vector<NodePtr> children) const {
  return make_top_k(std::move(children.at(0)), k, keys);
}

ColumnSet TopKNode::required_input(const ColumnSet& required) const {
  ColumnSet out = required;
  for (const auto& key : keys) referenced_columns(*key.expr, out);
  return out;
}

std::vector<ExprPtr> TopKNode::expressions() const {
  std::vector<ExprPtr> out;
  for (const auto& key : keys) out.push_back(key.expr);
  return out;
}

NodePtr TopKNode::with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const {
  std::vector<SortSpec> new_keys = keys;
  for (size_t i = 0; i < new_keys.size(); ++i) new_keys[i].expr = exprs.at(i);
  return make_top_k(std::move(input), k, std::move(new_keys));
}

NodePtr make_top_k(NodePtr input, int64_t k, std::vector<SortSpec> keys) {
  if (k < 0) throw InvalidArgument("top_k(" + std::to_string(k) + "): n must be >= 0");
  check_sort_keys(keys, input->schema, "top_k");
  auto n = std::make_shared<TopKNode>();
  n->schema = input->schema;
  n->k = k;
  n->keys = std::move(keys);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
