// Filter pushdown through the nodes' filter_passthrough().
#include "plan/filter_pushdown.h"

#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/filter_node.h"

namespace ember {

namespace {

ExprPtr rename_columns(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  if (e->kind == ExprKind::Column) {
    auto n = std::make_shared<ExprNode>(*e);
    n->name = names.at(e->name);
    return n;
  }
  auto copy = std::make_shared<ExprNode>(*e);
  for (auto& c : copy->children) c = rename_columns(c, names);
  return copy;
}

/// Moves filter `f` below its child; returns null when it must stay.
NodePtr push_below_child(const FilterNode& f) {
  const NodePtr& child = f.children[0];
  std::optional<std::map<std::string, std::string>> pass = child->filter_passthrough();
  if (!pass) return nullptr;
  std::set<std::string> used;
  referenced_columns(*f.predicate, used);
  for (const auto& c : used)
    if (!pass->count(c)) return nullptr;
  NodePtr below =
      push_down_filters(make_filter(child->children.at(0), rename_columns(f.predicate, *pass)));
  return child->with_children({below});
}

}  // namespace

NodePtr push_down_filters(const NodePtr& plan) {
  std::vector<NodePtr> children;
  for (const auto& c : plan->children) children.push_back(push_down_filters(c));
  NodePtr node = plan->over(std::move(children));
  if (const auto* f = dynamic_cast<const FilterNode*>(node.get())) {
    if (NodePtr pushed = push_below_child(*f)) return pushed;
  }
  return node;
}

}  // namespace ember
