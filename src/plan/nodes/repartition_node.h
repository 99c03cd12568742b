// A repartition: the input's rows, in order, cut into a given number of partitions.
#pragma once

#include "plan/logical_node.h"

namespace ember {

struct RepartitionNode final : LogicalNode {
  int num_partitions = 0;

  std::string describe() const override { return "Repartition " + std::to_string(num_partitions); }
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override { return required; }
};

/// InvalidArgument when `num_partitions` < 1.
NodePtr make_repartition(NodePtr input, int num_partitions);

}  // namespace ember
