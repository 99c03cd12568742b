// Limit pushdown through the nodes' preserves_rows().
#include "plan/limit_pushdown.h"

#include <algorithm>

#include "plan/nodes/limit_node.h"
#include "plan/nodes/sort_node.h"
#include "plan/nodes/top_k_node.h"

namespace ember {

NodePtr push_down_limits(const NodePtr& plan) {
  std::vector<NodePtr> children;
  for (const auto& c : plan->children) children.push_back(push_down_limits(c));
  NodePtr node = plan->over(std::move(children));
  const auto* limit = dynamic_cast<const LimitNode*>(node.get());
  if (!limit) return node;
  const NodePtr& below = node->children[0];
  if (const auto* inner = dynamic_cast<const LimitNode*>(below.get()))
    return make_limit(below->children[0], std::min(limit->limit, inner->limit));
  // sort(...).limit(n) is a top-k: each partition keeps only n rows.
  if (const auto* sort = dynamic_cast<const SortNode*>(below.get()))
    return make_top_k(below->children[0], limit->limit, sort->keys);
  if (const auto* top = dynamic_cast<const TopKNode*>(below.get()))
    return make_top_k(below->children[0], std::min(limit->limit, top->k), top->keys);
  if (below->preserves_rows())
    return below->with_children({push_down_limits(make_limit(below->children[0], limit->limit))});
  return node;
}

}  // namespace ember
