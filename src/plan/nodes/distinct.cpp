// distinct() as a composition of nodes that exist: GroupBy + first() + Project.
#include "plan/nodes/distinct.h"

#include <set>

#include "ember/error.h"
#include "plan/nodes/group_by_node.h"
#include "plan/nodes/project_node.h"

namespace ember {

namespace {

ExprPtr column(const std::string& name) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Column;
  n->name = name;
  return n;
}

ExprPtr first_of(const std::string& name) {
  auto agg = std::make_shared<ExprNode>();
  agg->kind = ExprKind::Aggregate;
  agg->agg = AggFunc::First;
  agg->children.push_back(column(name));
  return agg;
}

}  // namespace

NodePtr make_distinct(NodePtr input, std::vector<std::string> columns) {
  const Schema& in = input->schema;
  if (columns.empty())
    for (const Field& f : in.fields()) columns.push_back(f.name);
  std::set<std::string> keyed;
  std::vector<ExprPtr> keys, firsts, order;
  for (const std::string& c : columns) {
    if (in.index_of(c) < 0)
      throw InvalidArgument("distinct: unknown column '" + c + "'; columns are: " + in.to_string());
    if (!keyed.insert(c).second)
      throw InvalidArgument("distinct: column '" + c + "' is named twice");
    keys.push_back(column(c));
  }
  for (const Field& f : in.fields()) {
    if (!keyed.count(f.name)) firsts.push_back(first_of(f.name));
    order.push_back(column(f.name));
  }
  if (firsts.empty()) {
    // Every column is a key: count rows to have an aggregate, then drop it.
    auto count = std::make_shared<ExprNode>();
    count->kind = ExprKind::Aggregate;
    count->agg = AggFunc::Count;
    auto one = std::make_shared<ExprNode>();
    one->kind = ExprKind::Literal;
    one->literal = int64_t{1};
    count->children.push_back(one);
    auto alias = std::make_shared<ExprNode>();
    alias->kind = ExprKind::Alias;
    alias->name = "__ember_distinct_rows";
    alias->children.push_back(count);
    firsts.push_back(alias);
  }
  return make_project(make_group_by(std::move(input), std::move(keys), std::move(firsts)),
                      std::move(order));
}

}  // namespace ember
