// Join rewrites: conjunct routing for filters, and pools lifted over row-reducing joins.
#include "plan/join_pushdown.h"

#include <set>

#include "expr/expr_tree.h"
#include "plan/filter_pushdown.h"
#include "plan/nodes/actor_pool_project_node.h"
#include "plan/nodes/filter_node.h"
#include "plan/nodes/join_node.h"
#include "plan/nodes/project_node.h"

namespace ember {

namespace {

void split_conjuncts(const ExprPtr& e, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::Binary && e->binary == BinaryOp::And) {
    split_conjuncts(e->children[0], out);
    split_conjuncts(e->children[1], out);
    return;
  }
  out.push_back(e);
}

ExprPtr conjunction(const std::vector<ExprPtr>& parts) {
  ExprPtr out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    auto n = std::make_shared<ExprNode>();
    n->kind = ExprKind::Binary;
    n->binary = BinaryOp::And;
    n->children = {out, parts[i]};
    out = n;
  }
  return out;
}

ExprPtr renamed(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  auto copy = std::make_shared<ExprNode>(*e);
  if (e->kind == ExprKind::Column) copy->name = names.at(e->name);
  for (auto& c : copy->children) c = renamed(c, names);
  return copy;
}

NodePtr filtered(NodePtr input, const std::vector<ExprPtr>& parts) {
  if (parts.empty()) return input;
  return push_filters_into_joins(
      push_down_filters(make_filter(std::move(input), conjunction(parts))));
}

/// The filter `f` over join `j`, with what it can routed below the join; null if nothing moves.
NodePtr route(const FilterNode& f, const JoinNode& j) {
  const JoinType t = j.type;
  const bool to_left =
      t == JoinType::Inner || t == JoinType::Left || t == JoinType::Semi || t == JoinType::Anti;
  const bool to_right = t == JoinType::Inner || t == JoinType::Right;
  std::map<std::string, std::string> left_names, right_names = j.right_columns;
  for (const Field& fld : j.left().schema.fields()) left_names[fld.name] = fld.name;
  for (const auto& k : j.on) right_names[k] = k;
  // A key's output value is the left row's, except in a right join (the right row's).
  if (t == JoinType::Right)
    for (const auto& k : j.on) left_names.erase(k);

  std::vector<ExprPtr> parts, left, right, above;
  split_conjuncts(f.predicate, parts);
  for (const auto& p : parts) {
    std::set<std::string> used;
    referenced_columns(*p, used);
    bool on_left = to_left, on_right = to_right;
    for (const auto& c : used) {
      on_left = on_left && left_names.count(c);
      on_right = on_right && right_names.count(c);
    }
    if (used.empty() || contains_lifted_call(*p)) on_left = on_right = false;
    if (on_left) left.push_back(p);
    // Under an inner join a predicate on keys alone holds on both sides: filter both.
    if (on_right && (!on_left || t == JoinType::Inner)) right.push_back(renamed(p, right_names));
    if (!on_left && !on_right) above.push_back(p);
  }
  if (left.empty() && right.empty()) return nullptr;
  NodePtr join = j.with_children({filtered(j.children[0], left), filtered(j.children[1], right)});
  return above.empty() ? join : make_filter(join, conjunction(above));
}

/// True when `project` passes each key through as a column of the same name.
bool passes_keys(const ProjectNode& project, const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    bool found = false;
    for (const auto& e : project.exprs)
      found = found || (e->kind == ExprKind::Column && e->name == k);
    if (!found) return false;
  }
  return true;
}

/// True when a pool lies below `n` through projections and filters only.
bool has_pool_below(const LogicalNode& n) {
  if (dynamic_cast<const ActorPoolProjectNode*>(&n)) return true;
  const bool see_through =
      dynamic_cast<const ProjectNode*>(&n) || dynamic_cast<const FilterNode*>(&n);
  return see_through && has_pool_below(n.child());
}

/// True when a pool lies anywhere in the tree of `n`.
bool has_pool(const LogicalNode& n) {
  if (dynamic_cast<const ActorPoolProjectNode*>(&n)) return true;
  for (const auto& c : n.children)
    if (has_pool(*c)) return true;
  return false;
}

/// join(left, right) with the join moved below the pools (and projections) at the top of
/// `left` where that is allowed.
NodePtr sink_join(const NodePtr& left, const JoinNode& j) {
  if (const auto* pool = dynamic_cast<const ActorPoolProjectNode*>(left.get())) {
    bool key_is_result = false;
    for (const auto& k : j.on) key_is_result = key_is_result || k == pool->output_column;
    if (!key_is_result) return left->with_children({sink_join(left->children[0], j)});
  }
  if (const auto* project = dynamic_cast<const ProjectNode*>(left.get())) {
    if (passes_keys(*project, j.on) && has_pool_below(project->child()))
      return left->with_children({sink_join(left->children[0], j)});
  }
  // A filter keeps columns as they are, and commutes with a join that only drops left rows.
  if (dynamic_cast<const FilterNode*>(left.get()) && has_pool_below(*left))
    return left->with_children({sink_join(left->children[0], j)});
  return make_join(left, j.children[1], j.on, j.type);
}

}  // namespace

NodePtr push_filters_into_joins(const NodePtr& plan) {
  std::vector<NodePtr> children;
  for (const auto& c : plan->children) children.push_back(push_filters_into_joins(c));
  NodePtr node = plan->over(std::move(children));
  const auto* f = dynamic_cast<const FilterNode*>(node.get());
  if (!f) return node;
  const auto* j = dynamic_cast<const JoinNode*>(node->children[0].get());
  if (!j) return node;
  NodePtr routed = route(*f, *j);
  return routed ? routed : node;
}

NodePtr place_pools_after_joins(const NodePtr& plan) {
  std::vector<NodePtr> children;
  for (const auto& c : plan->children) children.push_back(place_pools_after_joins(c));
  NodePtr node = plan->over(std::move(children));
  const auto* j = dynamic_cast<const JoinNode*>(node.get());
  if (!j) return node;
  if (j->type == JoinType::Semi || j->type == JoinType::Anti)
    return sink_join(node->children[0], *j);
  const NodePtr& left = node->children[0];
  const NodePtr& right = node->children[1];
  if ((j->type != JoinType::Inner && j->type != JoinType::Right) || !has_pool_below(*left) ||
      has_pool(*right))
    return node;
  // Left rows without a match are dropped by both joins: a semi join below the pool drops them
  // before the UDF sees them, and the join above still pairs each kept row with its matches.
  const NodePtr semi = make_join(left, right, j->on, JoinType::Semi);
  NodePtr reduced = sink_join(left, static_cast<const JoinNode&>(*semi));
  if (dynamic_cast<const JoinNode*>(reduced.get())) return node;  // no pool could be passed
  return node->with_children({std::move(reduced), right});
}

}  // namespace ember
