// An actor pool node: the input's schema plus the UDF's result column.
#include "plan/nodes/actor_pool_project_node.h"

namespace ember {

std::string ActorPoolProjectNode::describe() const {
  std::string args;
  for (const auto& a : arg_names) args += (args.empty() ? "" : ", ") + a;
  return "ActorPoolProject " + output_column + " = " + udf->name + "(" + args + ")";
}

NodePtr ActorPoolProjectNode::with_children(std::vector<NodePtr> children) const {
  return make_actor_pool_project(std::move(children.at(0)), udf, arg_columns, arg_names,
                                 output_column);
}

ColumnSet ActorPoolProjectNode::required_input(const ColumnSet& required) const {
  // The pool always runs (its statistics are part of the result); it just carries less.
  ColumnSet below = required;
  below.erase(output_column);
  below.insert(arg_columns.begin(), arg_columns.end());
  return below;
}

std::optional<std::map<std::string, std::string>> ActorPoolProjectNode::filter_passthrough() const {
  std::map<std::string, std::string> out;
  for (const Field& f : child().schema.fields()) out[f.name] = f.name;
  return out;
}

NodePtr make_actor_pool_project(NodePtr input, std::shared_ptr<const UdfSpec> udf,
                                std::vector<std::string> arg_columns,
                                std::vector<std::string> arg_names, std::string output_column) {
  auto n = std::make_shared<ActorPoolProjectNode>();
  std::vector<Field> fields = input->schema.fields();
  fields.push_back({output_column, *udf->return_type});
  n->schema = Schema(std::move(fields));
  n->udf = std::move(udf);
  n->arg_columns = std::move(arg_columns);
  n->arg_names = std::move(arg_names);
  n->output_column = std::move(output_column);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
