// A hash join of two inputs on equal key columns: children[0] is the left (probe) side,
// children[1] the right (build) side.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ember/join_type.h"
#include "plan/logical_node.h"

namespace ember {

struct JoinNode final : LogicalNode {
  std::vector<std::string> on;  ///< key columns, named alike on both sides
  JoinType type = JoinType::Inner;
  /// Output name -> right input name of each right column in the output (keys excluded: they
  /// appear once, under the left's name).
  std::map<std::string, std::string> right_columns;

  const LogicalNode& left() const { return *children.at(0); }
  const LogicalNode& right() const { return *children.at(1); }

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  /// Both sides' needs together (names as each side spells them).
  ColumnSet required_input(const ColumnSet& required) const override;
  ColumnSet required_input_of(size_t child, const ColumnSet& required) const override;
};

/// InvalidArgument for no keys or a key missing on a side; TypeError naming both columns for
/// keys of different types. Right columns whose names clash with a left column get the
/// suffix "_right" (again, until unique); `names` (right input name -> output name) fixes the
/// names of a join being rebuilt.
NodePtr make_join(NodePtr left, NodePtr right, std::vector<std::string> on, JoinType type,
                  const std::map<std::string, std::string>& names = {});

/// "inner", "left", ... for explain().
const char* join_type_name(JoinType type);

}  // namespace ember
