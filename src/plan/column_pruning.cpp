// Column pruning, top-down: each node tells its input which columns it needs.
#include "plan/column_pruning.h"

#include "plan/nodes/project_node.h"

namespace ember {

namespace {

/// `input` narrowed to the `required` columns by a projection, when it has others: a join
/// copies every column of its sides into its output, so what it is not asked for must not
/// reach it.
NodePtr narrowed(NodePtr input, const ColumnSet& required) {
  std::vector<ExprPtr> keep;
  for (const Field& f : input->schema.fields()) {
    if (!required.count(f.name)) continue;
    auto c = std::make_shared<ExprNode>();
    c->kind = ExprKind::Column;
    c->name = f.name;
    keep.push_back(std::move(c));
  }
  if (keep.empty() || keep.size() == static_cast<size_t>(input->schema.num_fields())) return input;
  return make_project(std::move(input), std::move(keep));
}

NodePtr prune(const NodePtr& n, const ColumnSet& required) {
  NodePtr self = n->without_unused_outputs(required);
  if (self->children.empty()) return self;
  std::vector<NodePtr> children;
  const bool join = self->children.size() > 1;
  for (size_t i = 0; i < self->children.size(); ++i) {
    const ColumnSet below = self->required_input_of(i, required);
    NodePtr child = prune(self->children[i], below);
    children.push_back(join ? narrowed(std::move(child), below) : std::move(child));
  }
  return self->over(std::move(children));
}

}  // namespace

NodePtr prune_columns(const NodePtr& plan) {
  ColumnSet all;
  for (const Field& f : plan->schema.fields()) all.insert(f.name);
  return prune(plan, all);
}

}  // namespace ember
