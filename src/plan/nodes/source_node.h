// A leaf of the plan: rows from a partitioned source (a file scan, a range, a table).
#pragma once

#include "plan/logical_node.h"
#include "plan/source.h"

namespace ember {

struct SourceNode final : LogicalNode {
  std::shared_ptr<const Source> source;

  std::string describe() const override { return source->describe(); }
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet&) const override { return {}; }
  std::vector<std::string> files() const override { return source->files(); }
  /// A scan that can read fewer columns reads only the required ones.
  NodePtr without_unused_outputs(const ColumnSet& required) const override;
};

NodePtr make_source(std::shared_ptr<const Source> source);

}  // namespace ember
