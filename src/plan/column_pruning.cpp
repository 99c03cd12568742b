// Column pruning, top-down: each node tells its input which columns it needs.
#include "plan/column_pruning.h"

namespace ember {

namespace {

NodePtr prune(const NodePtr& n, const ColumnSet& required) {
  NodePtr self = n->without_unused_outputs(required);
  if (self->children.empty()) return self;
  ColumnSet below = self->required_input(required);
  std::vector<NodePtr> children;
  for (const auto& c : self->children) children.push_back(prune(c, below));
  return self->over(std::move(children));
}

}  // namespace

NodePtr prune_columns(const NodePtr& plan) {
  ColumnSet all;
  for (const Field& f : plan->schema.fields()) all.insert(f.name);
  return prune(plan, all);
}

}  // namespace ember
