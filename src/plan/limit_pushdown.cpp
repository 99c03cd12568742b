// Limit pushdown through the nodes' preserves_rows().
#include "plan/limit_pushdown.h"

#include <algorithm>

#include "plan/nodes/limit_node.h"

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
  if (below->preserves_rows())
    return below->with_children({push_down_limits(make_limit(below->children[0], limit->limit))});
  return node;
}

}  // namespace ember
