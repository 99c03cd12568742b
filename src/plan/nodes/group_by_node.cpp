// A group-by node: key columns typed like a projection, aggregates like agg().
#include "plan/nodes/group_by_node.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/expression_columns.h"

namespace ember {

std::string GroupByNode::describe() const {
  return "GroupBy [" + describe_expressions(keys) + "] " + describe_expressions(aggregates);
}

NodePtr GroupByNode::with_children(std::vector<NodePtr> children) const {
  return make_group_by(std::move(children.at(0)), keys, aggregates);
}

ColumnSet GroupByNode::required_input(const ColumnSet&) const {
  ColumnSet out = columns_read(keys);
  for (const auto& c : columns_read(aggregates)) out.insert(c);
  return out;
}

std::vector<ExprPtr> GroupByNode::expressions() const {
  std::vector<ExprPtr> out = keys;
  out.insert(out.end(), aggregates.begin(), aggregates.end());
  return out;
}

NodePtr GroupByNode::with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const {
  std::vector<ExprPtr> new_keys(exprs.begin(), exprs.begin() + static_cast<long>(keys.size()));
  std::vector<ExprPtr> new_aggs(exprs.begin() + static_cast<long>(keys.size()), exprs.end());
  return make_group_by(std::move(input), std::move(new_keys), std::move(new_aggs));
}

NodePtr make_group_by(NodePtr input, std::vector<ExprPtr> keys, std::vector<ExprPtr> aggregates) {
  if (keys.empty()) throw InvalidArgument("group_by needs at least one key expression");
  if (aggregates.empty())
    throw InvalidArgument("group_by(...).agg needs at least one aggregate expression");
  Schema key_schema = expression_columns(keys, input->schema, "group_by", infer_type);
  Schema agg_schema =
      expression_columns(aggregates, input->schema, "group_by(...).agg", infer_aggregate_type);
  std::vector<Field> fields = key_schema.fields();
  for (const Field& f : agg_schema.fields()) {
    if (key_schema.index_of(f.name) >= 0)
      throw InvalidArgument("duplicate output column '" + f.name +
                            "' in group_by(...).agg: it is a key; give the aggregate another "
                            "name with .alias(...)");
    fields.push_back(f);
  }
  auto n = std::make_shared<GroupByNode>();
  n->schema = Schema(std::move(fields));
  n->keys = std::move(keys);
  n->aggregates = std::move(aggregates);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
