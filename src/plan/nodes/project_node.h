// A projection: one output column per expression over the input.
#pragma once

#include "plan/logical_node.h"

namespace ember {

struct ProjectNode final : LogicalNode {
  std::vector<ExprPtr> exprs;  ///< one per output column

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  NodePtr without_unused_outputs(const ColumnSet& required) const override;
  std::vector<ExprPtr> expressions() const override { return exprs; }
  bool expressions_name_outputs() const override { return true; }
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> new_exprs) const override;
  std::optional<std::map<std::string, std::string>> filter_passthrough() const override;
  bool preserves_rows() const override { return true; }
};

/// Checks types (TypeError / InvalidArgument) and that output names are unique.
NodePtr make_project(NodePtr input, std::vector<ExprPtr> exprs);

}  // namespace ember
