// A limit: the first n rows of the input, in order.
#pragma once

#include <cstdint>

#include "plan/logical_node.h"

namespace ember {

struct LimitNode final : LogicalNode {
  int64_t limit = 0;

  std::string describe() const override { return "Limit " + std::to_string(limit); }
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override { return required; }
};

/// InvalidArgument when `n` < 0.
NodePtr make_limit(NodePtr input, int64_t n);

}  // namespace ember
