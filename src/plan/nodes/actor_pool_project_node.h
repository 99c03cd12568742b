// A stateful UDF call on an actor pool: every input column passes through, the result is
// appended as one more column.
#pragma once

#include "plan/logical_node.h"
#include "udf/udf_spec.h"

namespace ember {

struct ActorPoolProjectNode final : LogicalNode {
  std::shared_ptr<const UdfSpec> udf;
  std::vector<std::string> arg_columns;  ///< input columns sent to the actors
  std::vector<std::string> arg_names;    ///< the names the actors see (the argument expressions)
  std::string output_column;

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::optional<std::map<std::string, std::string>> filter_passthrough() const override;
  bool preserves_rows() const override { return true; }
};

NodePtr make_actor_pool_project(NodePtr input, std::shared_ptr<const UdfSpec> udf,
                                std::vector<std::string> arg_columns,
                                std::vector<std::string> arg_names, std::string output_column);

}  // namespace ember
