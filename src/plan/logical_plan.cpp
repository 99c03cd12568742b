// Construction and printing of logical plan nodes.
#include "plan/logical_plan.h"

#include <set>
#include <sstream>

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"

namespace ember {

namespace {

std::shared_ptr<LogicalNode> node_over(NodeKind kind, NodePtr input) {
  auto n = std::make_shared<LogicalNode>();
  n->kind = kind;
  n->schema = input->schema;
  n->children.push_back(std::move(input));
  return n;
}

std::string join_exprs(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) {
    if (!out.empty()) out += ", ";
    std::string name = output_name(*e);
    std::string text = to_string(*e);
    out += (text == name || e->kind == ExprKind::Alias) ? text : text + " AS " + name;
  }
  return out;
}

std::string describe_node(const LogicalNode& n) {
  switch (n.kind) {
    case NodeKind::Source:
      return n.source->describe();
    case NodeKind::Project:
      return "Project " + join_exprs(n.exprs);
    case NodeKind::Filter:
      return "Filter " + to_string(*n.predicate);
    case NodeKind::Limit:
      return "Limit " + std::to_string(n.limit);
    case NodeKind::Aggregate:
      return "Aggregate " + join_exprs(n.exprs);
    case NodeKind::Repartition:
      return "Repartition " + std::to_string(n.num_partitions);
    case NodeKind::ActorPoolProject: {
      std::string args;
      for (const auto& a : n.arg_names) args += (args.empty() ? "" : ", ") + a;
      return "ActorPoolProject " + n.output_column + " = " + n.udf->name + "(" + args + ")";
    }
  }
  return "?";
}

/// A node with one output column per expression: types each one and checks that output names
/// are unique; `op` names the method in errors.
NodePtr node_of_exprs(NodeKind kind, NodePtr input, std::vector<ExprPtr> exprs, const char* op,
                      DataType (*infer)(const ExprNode&, const Schema&)) {
  std::vector<Field> fields;
  std::set<std::string> names;
  for (const auto& e : exprs) {
    DataType t = infer(*e, input->schema);
    std::string name = output_name(*e);
    if (!names.insert(name).second)
      throw InvalidArgument("duplicate output column '" + name + "' in " + op +
                            ": give one of them another name with .alias(...)");
    fields.push_back({name, t});
  }
  auto n = node_over(kind, std::move(input));
  n->schema = Schema(std::move(fields));
  n->exprs = std::move(exprs);
  return n;
}

void print(const LogicalNode& n, int depth, std::ostringstream& out) {
  out << std::string(static_cast<size_t>(depth) * 2, ' ') << describe_node(n) << "\n";
  for (const auto& c : n.children) print(*c, depth + 1, out);
}

}  // namespace

NodePtr make_source(std::shared_ptr<const Source> source) {
  auto n = std::make_shared<LogicalNode>();
  n->kind = NodeKind::Source;
  n->schema = source->schema();
  n->source = std::move(source);
  return n;
}

NodePtr make_project(NodePtr input, std::vector<ExprPtr> exprs) {
  if (exprs.empty()) throw InvalidArgument("select needs at least one expression");
  return node_of_exprs(NodeKind::Project, std::move(input), std::move(exprs), "select",
                       infer_type);
}

NodePtr make_filter(NodePtr input, ExprPtr predicate) {
  DataType t = infer_type(*predicate, input->schema);
  if (t.id() != TypeId::Boolean && t.id() != TypeId::Null)
    throw TypeError("where() needs a bool predicate, but " + to_string(*predicate) + " is " +
                    t.to_string());
  auto n = node_over(NodeKind::Filter, std::move(input));
  n->predicate = std::move(predicate);
  return n;
}

NodePtr make_limit(NodePtr input, int64_t limit) {
  if (limit < 0) throw InvalidArgument("limit(" + std::to_string(limit) + "): must be >= 0");
  auto n = node_over(NodeKind::Limit, std::move(input));
  n->limit = limit;
  return n;
}

NodePtr make_aggregate(NodePtr input, std::vector<ExprPtr> aggregates) {
  if (aggregates.empty()) throw InvalidArgument("agg needs at least one aggregate expression");
  return node_of_exprs(NodeKind::Aggregate, std::move(input), std::move(aggregates), "agg",
                       infer_aggregate_type);
}

NodePtr make_repartition(NodePtr input, int num_partitions) {
  if (num_partitions < 1)
    throw InvalidArgument("repartition(" + std::to_string(num_partitions) + "): must be >= 1");
  auto n = node_over(NodeKind::Repartition, std::move(input));
  n->num_partitions = num_partitions;
  return n;
}

NodePtr make_actor_pool_project(NodePtr input, std::shared_ptr<const UdfSpec> udf,
                                std::vector<std::string> arg_columns,
                                std::vector<std::string> arg_names, std::string output_column) {
  auto n = node_over(NodeKind::ActorPoolProject, std::move(input));
  std::vector<Field> fields = n->schema.fields();
  fields.push_back({output_column, *udf->return_type});
  n->schema = Schema(std::move(fields));
  n->udf = std::move(udf);
  n->arg_columns = std::move(arg_columns);
  n->arg_names = std::move(arg_names);
  n->output_column = std::move(output_column);
  return n;
}

std::vector<std::string> source_files(const LogicalNode& root) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  std::vector<const LogicalNode*> stack{&root};
  while (!stack.empty()) {
    const LogicalNode* n = stack.back();
    stack.pop_back();
    if (n->source) {
      for (std::string& f : n->source->files())
        if (seen.insert(f).second) files.push_back(std::move(f));
    }
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
  }
  return files;
}

std::string to_string(const LogicalNode& node) {
  std::ostringstream out;
  print(node, 0, out);
  return out.str();
}

}  // namespace ember
