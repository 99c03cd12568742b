// An explode: one output row per item of a list column, the other columns repeated.
#pragma once

#include <string>

#include "plan/logical_node.h"

namespace ember {

struct ExplodeNode final : LogicalNode {
  std::string column;  ///< the list column; in the output it holds one item per row

  std::string describe() const override { return "Explode " + column; }
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
};

/// InvalidArgument for an unknown column, TypeError when it is not a list.
NodePtr make_explode(NodePtr input, std::string column);

}  // namespace ember
