// A limit node.
#include "plan/nodes/limit_node.h"

#include "ember/error.h"

namespace ember {

NodePtr LimitNode::with_children(std::vector<NodePtr> children) const {
  return make_limit(std::move(children.at(0)), limit);
}

NodePtr make_limit(NodePtr input, int64_t n) {
  if (n < 0) throw InvalidArgument("limit(" + std::to_string(n) + "): must be >= 0");
  auto node = std::make_shared<LimitNode>();
  node->schema = input->schema;
  node->limit = n;
  node->children.push_back(std::move(input));
  return node;
}

}  // namespace ember
