// A global aggregate: one output row, one column per aggregate expression.
#pragma once

#include "plan/logical_node.h"

namespace ember {

struct AggregateNode final : LogicalNode {
  std::vector<ExprPtr> exprs;  ///< one aggregate per output column (col("x").sum(), aliased...)

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::vector<ExprPtr> expressions() const override { return exprs; }
  bool expressions_name_outputs() const override { return true; }
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> new_exprs) const override;
};

/// Each expression must be an aggregate, possibly aliased. Checks types and that output names
/// are unique.
NodePtr make_aggregate(NodePtr input, std::vector<ExprPtr> aggregates);

}  // namespace ember
