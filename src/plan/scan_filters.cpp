// Filter-on-scan rewrite, bottom-up.
#include "plan/scan_filters.h"

#include "plan/nodes/filter_node.h"
#include "plan/nodes/source_node.h"

namespace ember {

NodePtr push_filters_into_scans(const NodePtr& plan) {
  std::vector<NodePtr> children;
  for (const NodePtr& c : plan->children) children.push_back(push_filters_into_scans(c));
  NodePtr self = plan->over(std::move(children));
  const auto* filter = dynamic_cast<const FilterNode*>(self.get());
  if (!filter) return self;
  const auto* scan = dynamic_cast<const SourceNode*>(&filter->child());
  if (!scan) return self;
  auto narrowed = scan->source->with_filter(filter->predicate);
  if (!narrowed) return self;
  return self->with_children({make_source(std::move(narrowed))});
}

}  // namespace ember
