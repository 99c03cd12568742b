// Column pruning, top-down: each node tells its input which columns it needs.
#include "plan/column_pruning.h"

namespace ember {

namespace {

NodePtr prune(const NodePtr& n, const ColumnSet& required) {
  NodePtr self = n->without_unused_outputs(required);
  if (self->children.empty()) return self;
  std::vector<NodePtr> children;
  for (size_t i = 0; i < self->children.size(); ++i)
    children.push_back(prune(self->children[i], self->required_input_of(i, required)));
  return self->over(std::move(children));
}

}  // namespace

NodePtr prune_columns(const NodePtr& plan) {
  ColumnSet all;
  for (const Field& f : plan->schema.fields()) all.insert(f.name);
  return prune(plan, all);
}

}  // namespace ember
