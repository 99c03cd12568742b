// Column pruning, top-down: each node tells its input which columns it needs.
#include "plan/column_pruning.h"

#include <set>
#include <string>

#include "expr/expr_tree.h"

namespace ember {

namespace {

using Names = std::set<std::string>;

Names references(const std::vector<ExprPtr>& exprs) {
  Names out;
  for (const auto& e : exprs) referenced_columns(*e, out);
  return out;
}

NodePtr prune(const NodePtr& n, const Names& required);

NodePtr prune_project(const LogicalNode& n, const Names& required) {
  std::vector<ExprPtr> kept;
  for (const auto& e : n.exprs)
    if (required.count(output_name(*e))) kept.push_back(e);
  // A projection with no columns would lose the row count: keep one.
  if (kept.empty()) kept.push_back(n.exprs.front());
  NodePtr input = prune(n.children[0], references(kept));
  return make_project(std::move(input), std::move(kept));
}

NodePtr prune(const NodePtr& n, const Names& required) {
  switch (n->kind) {
    case NodeKind::Source:
      return n;
    case NodeKind::Project:
      return prune_project(*n, required);
    case NodeKind::Filter: {
      Names below = required;
      referenced_columns(*n->predicate, below);
      return make_filter(prune(n->children[0], below), n->predicate);
    }
    case NodeKind::Limit:
      return make_limit(prune(n->children[0], required), n->limit);
    case NodeKind::Repartition:
      return make_repartition(prune(n->children[0], required), n->num_partitions);
    case NodeKind::Aggregate:
      return make_aggregate(prune(n->children[0], references(n->exprs)), n->exprs);
    case NodeKind::ActorPoolProject: {
      // The pool always runs (its statistics are part of the result); it just carries less.
      Names below = required;
      below.erase(n->output_column);
      below.insert(n->arg_columns.begin(), n->arg_columns.end());
      return make_actor_pool_project(prune(n->children[0], below), n->udf, n->arg_columns,
                                     n->arg_names, n->output_column);
    }
  }
  return n;
}

}  // namespace

NodePtr prune_columns(const NodePtr& plan) {
  Names all;
  for (const Field& f : plan->schema.fields()) all.insert(f.name);
  return prune(plan, all);
}

}  // namespace ember
