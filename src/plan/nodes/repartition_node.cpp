// A repartition node.
#include "plan/nodes/repartition_node.h"

#include "ember/error.h"

namespace ember {

NodePtr RepartitionNode::with_children(std::vector<NodePtr> children) const {
  return make_repartition(std::move(children.at(0)), num_partitions);
}

NodePtr make_repartition(NodePtr input, int num_partitions) {
  if (num_partitions < 1)
    throw InvalidArgument("repartition(" + std::to_string(num_partitions) + "): must be >= 1");
  auto n = std::make_shared<RepartitionNode>();
  n->schema = input->schema;
  n->num_partitions = num_partitions;
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
