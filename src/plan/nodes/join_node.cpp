// A join node: checks the keys, names the output columns, and says what each side must supply.
#include "plan/nodes/join_node.h"

#include <set>

#include "ember/error.h"

namespace ember {

const char* join_type_name(JoinType type) {
  switch (type) {
    case JoinType::Inner:
      return "inner";
    case JoinType::Left:
      return "left";
    case JoinType::Right:
      return "right";
    case JoinType::Full:
      return "full";
    case JoinType::Semi:
      return "semi";
    case JoinType::Anti:
      return "anti";
  }
  return "?";
}

std::string JoinNode::describe() const {
  std::string keys;
  for (const auto& k : on) keys += (keys.empty() ? "" : ", ") + k;
  return std::string("HashJoin ") + join_type_name(type) + " on [" + keys + "] (right side builds)";
}

NodePtr JoinNode::with_children(std::vector<NodePtr> children) const {
  // Keep the output names this join gave: pruning a side must not rename the other's columns.
  std::map<std::string, std::string> names;
  for (const auto& [output, input] : right_columns) names[input] = output;
  return make_join(std::move(children.at(0)), std::move(children.at(1)), on, type, names);
}

ColumnSet JoinNode::required_input(const ColumnSet& required) const {
  ColumnSet out = required_input_of(0, required);
  for (const auto& c : required_input_of(1, required)) out.insert(c);
  return out;
}

ColumnSet JoinNode::required_input_of(size_t child, const ColumnSet& required) const {
  ColumnSet out(on.begin(), on.end());
  if (child == 0) {
    for (const Field& f : left().schema.fields())
      if (required.count(f.name)) out.insert(f.name);
    return out;
  }
  for (const auto& [output, input] : right_columns)
    if (required.count(output)) out.insert(input);
  return out;
}

NodePtr make_join(NodePtr left, NodePtr right, std::vector<std::string> on, JoinType type,
                  const std::map<std::string, std::string>& names) {
  if (on.empty()) throw InvalidArgument("join needs at least one key column in `on`");
  std::set<std::string> keys;
  for (const auto& k : on) {
    if (!keys.insert(k).second) throw InvalidArgument("join: key '" + k + "' is named twice");
    const int l = left->schema.index_of(k), r = right->schema.index_of(k);
    if (l < 0)
      throw InvalidArgument(
          "join: key '" + k +
          "' is not a column of the left side; columns are: " + left->schema.to_string());
    if (r < 0)
      throw InvalidArgument(
          "join: key '" + k +
          "' is not a column of the right side; columns are: " + right->schema.to_string());
    const DataType lt = left->schema.field(l).type, rt = right->schema.field(r).type;
    if (lt != rt)
      throw TypeError("join: key columns differ in type: left '" + k + "' is " + lt.to_string() +
                      ", right '" + k + "' is " + rt.to_string() + "; cast one side first");
  }
  auto n = std::make_shared<JoinNode>();
  std::vector<Field> fields = left->schema.fields();
  if (type != JoinType::Semi && type != JoinType::Anti) {
    std::set<std::string> taken;
    for (const Field& f : fields) taken.insert(f.name);
    for (const Field& f : right->schema.fields()) {
      if (keys.count(f.name)) continue;
      auto given = names.find(f.name);
      std::string name = given != names.end() ? given->second : f.name;
      while (taken.count(name)) name += "_right";
      taken.insert(name);
      n->right_columns[name] = f.name;
      fields.push_back({name, f.type});
    }
  }
  n->schema = Schema(std::move(fields));
  n->on = std::move(on);
  n->type = type;
  n->children = {std::move(left), std::move(right)};
  return n;
}

}  // namespace ember
