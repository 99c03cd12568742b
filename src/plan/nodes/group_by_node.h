// A grouped aggregate: one output row per distinct key, the key columns then the aggregates.
#pragma once

#include "plan/logical_node.h"

namespace ember {

struct GroupByNode final : LogicalNode {
  std::vector<ExprPtr> keys;        ///< one output column each (col("k"), or aliased)
  std::vector<ExprPtr> aggregates;  ///< one output column each, after the keys

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  /// The keys, then the aggregates.
  std::vector<ExprPtr> expressions() const override;
  bool expressions_name_outputs() const override { return true; }
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const override;
};

/// Keys must be expressions of a groupable type; aggregates as in make_aggregate. Checks types
/// (TypeError / InvalidArgument naming the column) and that output names are unique.
NodePtr make_group_by(NodePtr input, std::vector<ExprPtr> keys, std::vector<ExprPtr> aggregates);

}  // namespace ember
