// A filter: the input rows for which a bool predicate is true.
#pragma once

#include "plan/logical_node.h"

namespace ember {

struct FilterNode final : LogicalNode {
  ExprPtr predicate;

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::vector<ExprPtr> expressions() const override { return {predicate}; }
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const override;
};

/// The predicate must be bool (TypeError otherwise).
NodePtr make_filter(NodePtr input, ExprPtr predicate);

}  // namespace ember
