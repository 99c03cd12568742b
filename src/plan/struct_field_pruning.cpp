// Struct field pruning: for each source, its struct columns' uses are followed up the chain of
// nodes above it while they stay visible under a known name.
#include "plan/struct_field_pruning.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "plan/nodes/actor_pool_project_node.h"
#include "plan/nodes/aggregate_node.h"
#include "plan/nodes/filter_node.h"
#include "plan/nodes/group_by_node.h"
#include "plan/nodes/limit_node.h"
#include "plan/nodes/project_node.h"
#include "plan/nodes/source_node.h"

namespace ember {

namespace {

using FieldsRead = std::map<std::string, std::set<std::string>>;

/// What the nodes above a source read of its struct columns.
struct Uses {
  FieldsRead fields;            ///< column -> the fields read through .field(name)
  std::set<std::string> whole;  ///< columns read as a whole somewhere
};

/// Records the reads of the `visible` struct columns in `e`.
void collect(const ExprNode& e, const std::set<std::string>& visible, Uses& uses) {
  if (e.kind == ExprKind::Function && e.function == FunctionId::StructField &&
      e.children[0]->kind == ExprKind::Column && visible.count(e.children[0]->name) &&
      !e.params.empty() && std::holds_alternative<std::string>(e.params[0])) {
    uses.fields[e.children[0]->name].insert(std::get<std::string>(e.params[0]));
    return;
  }
  if (e.kind == ExprKind::Column && visible.count(e.name)) uses.whole.insert(e.name);
  for (const auto& c : e.children) collect(*c, visible, uses);
}

/// The fields of `source`'s struct columns that `above` (the nodes over it, nearest first)
/// read, for the columns read through fields only.
FieldsRead fields_read(const SourceNode& source, const std::vector<const LogicalNode*>& above) {
  std::set<std::string> visible;
  for (const Field& f : source.schema.fields())
    if (f.type.id() == TypeId::Struct) visible.insert(f.name);
  Uses uses;
  for (const LogicalNode* n : above) {
    if (visible.empty()) break;
    if (const auto* filter = dynamic_cast<const FilterNode*>(n)) {
      collect(*filter->predicate, visible, uses);
      continue;  // every column passes through under its name
    }
    if (dynamic_cast<const LimitNode*>(n)) continue;
    if (const auto* pool = dynamic_cast<const ActorPoolProjectNode*>(n)) {
      for (const std::string& c : pool->arg_columns)
        if (visible.count(c)) uses.whole.insert(c);
      visible.erase(pool->output_column);  // a result of the same name hides the column
      continue;
    }
    if (dynamic_cast<const ProjectNode*>(n) || dynamic_cast<const AggregateNode*>(n) ||
        dynamic_cast<const GroupByNode*>(n)) {
      // Its output holds its expressions alone: the columns are not visible above it.
      for (const ExprPtr& e : n->expressions()) collect(*e, visible, uses);
      visible.clear();
      break;
    }
    break;  // a node this rule does not see through: what is still visible is used whole
  }
  uses.whole.insert(visible.begin(), visible.end());
  for (const std::string& c : uses.whole) uses.fields.erase(c);
  return uses.fields;
}

NodePtr rewrite(const NodePtr& n, std::vector<const LogicalNode*>& above) {
  if (const auto* source = dynamic_cast<const SourceNode*>(n.get())) {
    // `above` is root first: the nodes over the source, nearest first.
    const FieldsRead fields =
        fields_read(*source, std::vector<const LogicalNode*>(above.rbegin(), above.rend()));
    if (fields.empty()) return n;
    auto narrowed = source->source->with_struct_fields(fields);
    return narrowed ? make_source(std::move(narrowed)) : n;
  }
  above.push_back(n.get());
  std::vector<NodePtr> children;
  for (const NodePtr& c : n->children) children.push_back(rewrite(c, above));
  above.pop_back();
  return n->over(std::move(children));
}

}  // namespace

NodePtr prune_struct_fields(const NodePtr& plan) {
  std::vector<const LogicalNode*> above;
  return rewrite(plan, above);
}

}  // namespace ember
