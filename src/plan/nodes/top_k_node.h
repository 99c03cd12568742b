// Top-k: the first n rows of the input in sort-key order (ties keep input order).
#pragma once

#include <cstdint>

#include "plan/nodes/sort_node.h"

namespace ember {

struct TopKNode final : LogicalNode {
  int64_t k = 0;
  std::vector<SortSpec> keys;

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::vector<ExprPtr> expressions() const override;
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const override;
};

/// InvalidArgument when `k` < 0; keys as in make_sort.
NodePtr make_top_k(NodePtr input, int64_t k, std::vector<SortSpec> keys);

}  // namespace ember
