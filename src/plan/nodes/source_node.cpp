// A source node: its schema is the source's.
#include "plan/nodes/source_node.h"

#include "ember/error.h"

namespace ember {

NodePtr SourceNode::with_children(std::vector<NodePtr> children) const {
  // Broken invariant: a rewrite gave inputs to a leaf.
  if (!children.empty()) throw Error("internal: a source node has no inputs");
  return shared_from_this();
}

NodePtr SourceNode::without_unused_outputs(const ColumnSet& required) const {
  if (required.size() >= static_cast<size_t>(schema.num_fields())) return shared_from_this();
  if (auto narrowed = source->with_columns(required)) return make_source(std::move(narrowed));
  return shared_from_this();
}

NodePtr make_source(std::shared_ptr<const Source> source) {
  auto n = std::make_shared<SourceNode>();
  n->schema = source->schema();
  n->source = std::move(source);
  return n;
}

}  // namespace ember
