// Logical rewrites: actor pool extraction, filter pushdown, limit pushdown, column pruning.
#include "plan/optimizer.h"

#include <functional>
#include <map>
#include <set>

#include "ember/error.h"
#include "expr/expr_tree.h"
#include "plan/column_pruning.h"

namespace ember {

namespace {

ExprPtr column_ref(const std::string& name) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Column;
  n->name = name;
  return n;
}

ExprPtr aliased(ExprPtr e, const std::string& name) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Alias;
  n->name = name;
  n->children.push_back(std::move(e));
  return n;
}

/// A projection that keeps every column of `input` and appends `extra` (name, expr) pairs.
NodePtr append_columns(NodePtr input, const std::vector<std::pair<std::string, ExprPtr>>& extra) {
  if (extra.empty()) return input;
  std::vector<ExprPtr> exprs;
  for (const auto& f : input->schema.fields()) exprs.push_back(column_ref(f.name));
  for (const auto& [name, e] : extra) exprs.push_back(aliased(e, name));
  return make_project(std::move(input), std::move(exprs));
}

/// Lifts stateful UDF calls out of expressions evaluated over `current`, chaining an
/// ActorPoolProject per call (post-order, so a UDF whose argument is another UDF's result runs
/// after it). Returns the rewritten expression; `current` grows.
class UdfLifter {
 public:
  explicit UdfLifter(int& counter) : counter_(counter) {}

  ExprPtr lift(const ExprPtr& e, NodePtr& current) {
    if (!contains_stateful_udf(*e)) return e;
    auto copy = std::make_shared<ExprNode>(*e);
    for (auto& c : copy->children) c = lift(c, current);
    if (copy->kind != ExprKind::UdfCall || !copy->udf->is_stateful()) return copy;

    std::vector<std::string> arg_columns, arg_names;
    std::vector<std::pair<std::string, ExprPtr>> computed;
    for (const auto& arg : copy->children) {
      arg_names.push_back(output_name(*arg));
      if (arg->kind == ExprKind::Column) {
        arg_columns.push_back(arg->name);
      } else {
        std::string tmp = "__ember_arg_" + std::to_string(counter_++);
        computed.emplace_back(tmp, arg);
        arg_columns.push_back(tmp);
      }
    }
    current = append_columns(current, computed);
    std::string out = "__ember_udf_" + std::to_string(counter_++);
    current = make_actor_pool_project(current, spec_of(copy->udf), arg_columns, arg_names, out);
    return column_ref(out);
  }

 private:
  int& counter_;
};

NodePtr with_child(const LogicalNode& n, NodePtr child) {
  auto copy = std::make_shared<LogicalNode>(n);
  copy->children = {std::move(child)};
  return copy;
}

NodePtr extract_pools(const NodePtr& n, int& counter) {
  if (n->kind == NodeKind::Source) return n;
  NodePtr child = extract_pools(n->children[0], counter);
  UdfLifter lifter(counter);
  if (n->kind == NodeKind::Project || n->kind == NodeKind::Aggregate) {
    NodePtr current = child;
    std::vector<ExprPtr> exprs;
    for (const auto& e : n->exprs) {
      ExprPtr lifted = lifter.lift(e, current);
      // Keep the user's column name where the UDF call was the whole expression.
      bool renamed = lifted != e && output_name(*lifted) != output_name(*e);
      exprs.push_back(renamed ? aliased(lifted, output_name(*e)) : lifted);
    }
    if (current == child) return with_child(*n, child);
    if (n->kind == NodeKind::Aggregate) return make_aggregate(current, std::move(exprs));
    return make_project(current, std::move(exprs));
  }
  if (n->kind == NodeKind::Filter && contains_stateful_udf(*n->predicate)) {
    NodePtr current = child;
    ExprPtr pred = lifter.lift(n->predicate, current);
    NodePtr filtered = make_filter(current, pred);
    std::vector<ExprPtr> keep;
    for (const auto& f : n->schema.fields()) keep.push_back(column_ref(f.name));
    return make_project(filtered, std::move(keep));
  }
  return with_child(*n, child);
}

/// Maps every column a projection passes through unchanged (col(x) or col(x).alias(y)) from
/// its output name to its input name.
std::map<std::string, std::string> passthrough_columns(const LogicalNode& project) {
  std::map<std::string, std::string> out;
  for (const auto& e : project.exprs) {
    const ExprNode* inner = e.get();
    while (inner->kind == ExprKind::Alias) inner = inner->children[0].get();
    if (inner->kind == ExprKind::Column) out[output_name(*e)] = inner->name;
  }
  return out;
}

ExprPtr rename_columns(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  if (e->kind == ExprKind::Column) return column_ref(names.at(e->name));
  auto copy = std::make_shared<ExprNode>(*e);
  for (auto& c : copy->children) c = rename_columns(c, names);
  return copy;
}

NodePtr push_filters(const NodePtr& n);

/// Tries to move Filter `f` below its child; returns nullptr when it must stay.
NodePtr push_filter_once(const LogicalNode& f) {
  const NodePtr& child = f.children[0];
  std::set<std::string> used;
  referenced_columns(*f.predicate, used);
  if (child->kind == NodeKind::Project) {
    auto pass = passthrough_columns(*child);
    for (const auto& c : used)
      if (!pass.count(c)) return nullptr;
    NodePtr below = push_filters(make_filter(child->children[0], rename_columns(f.predicate, pass)));
    return with_child(*child, below);
  }
  if (child->kind == NodeKind::ActorPoolProject && !used.count(child->output_column)) {
    NodePtr below = push_filters(make_filter(child->children[0], f.predicate));
    return with_child(*child, below);
  }
  return nullptr;
}

NodePtr push_filters(const NodePtr& n) {
  if (n->kind == NodeKind::Source) return n;
  NodePtr child = push_filters(n->children[0]);
  NodePtr node = child == n->children[0] ? n : with_child(*n, child);
  if (node->kind == NodeKind::Filter) {
    if (NodePtr pushed = push_filter_once(*node)) return pushed;
  }
  return node;
}

NodePtr push_limits(const NodePtr& n) {
  if (n->kind == NodeKind::Source) return n;
  NodePtr child = push_limits(n->children[0]);
  NodePtr node = child == n->children[0] ? n : with_child(*n, child);
  if (node->kind != NodeKind::Limit) return node;
  const NodePtr& below = node->children[0];
  if (below->kind == NodeKind::Limit) {
    return make_limit(below->children[0], std::min(node->limit, below->limit));
  }
  if (below->kind == NodeKind::Project || below->kind == NodeKind::ActorPoolProject) {
    // Row-preserving: limiting first computes the same rows and feeds the UDFs fewer.
    NodePtr limited = push_limits(make_limit(below->children[0], node->limit));
    return with_child(*below, limited);
  }
  return node;
}

}  // namespace

NodePtr optimize(const NodePtr& plan) {
  int counter = 0;
  NodePtr p = extract_pools(plan, counter);
  p = push_filters(p);
  p = push_limits(p);
  p = prune_columns(p);
  return p;
}

std::vector<const LogicalNode*> actor_pool_nodes(const LogicalNode& plan) {
  std::vector<const LogicalNode*> out;
  std::function<void(const LogicalNode&)> walk = [&](const LogicalNode& n) {
    for (const auto& c : n.children) walk(*c);
    if (n.kind == NodeKind::ActorPoolProject) out.push_back(&n);
  };
  walk(plan);
  return out;
}

}  // namespace ember
