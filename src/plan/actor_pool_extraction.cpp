// Lifting stateful UDF calls out of any node's expressions, through the node's virtuals.
#include "plan/actor_pool_extraction.h"

#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/actor_pool_project_node.h"
#include "plan/nodes/project_node.h"
#include "udf/udf_spec.h"

namespace ember {

namespace {

ExprPtr column_ref(const std::string& name) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Column;
  n->name = name;
  return n;
}

ExprPtr aliased(ExprPtr e, const std::string& name) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Alias;
  n->name = name;
  n->children.push_back(std::move(e));
  return n;
}

/// A projection that keeps every column of `input` and appends `extra` (name, expr) pairs.
NodePtr append_columns(NodePtr input, const std::vector<std::pair<std::string, ExprPtr>>& extra) {
  if (extra.empty()) return input;
  std::vector<ExprPtr> exprs;
  for (const auto& f : input->schema.fields()) exprs.push_back(column_ref(f.name));
  for (const auto& [name, e] : extra) exprs.push_back(aliased(e, name));
  return make_project(std::move(input), std::move(exprs));
}

/// Lifts stateful UDF calls out of expressions evaluated over `current`, chaining an
/// ActorPoolProject per call (post-order, so a UDF whose argument is another UDF's result runs
/// after it). Returns the rewritten expression; `current` grows.
class UdfLifter {
 public:
  explicit UdfLifter(int& counter) : counter_(counter) {}

  ExprPtr lift(const ExprPtr& e, NodePtr& current) {
    if (!contains_stateful_udf(*e)) return e;
    auto copy = std::make_shared<ExprNode>(*e);
    for (auto& c : copy->children) c = lift(c, current);
    if (copy->kind != ExprKind::UdfCall || !copy->udf->is_stateful()) return copy;

    std::vector<std::string> arg_columns, arg_names;
    std::vector<std::pair<std::string, ExprPtr>> computed;
    for (const auto& arg : copy->children) {
      arg_names.push_back(output_name(*arg));
      if (arg->kind == ExprKind::Column) {
        arg_columns.push_back(arg->name);
      } else {
        std::string tmp = "__ember_arg_" + std::to_string(counter_++);
        computed.emplace_back(tmp, arg);
        arg_columns.push_back(tmp);
      }
    }
    current = append_columns(current, computed);
    std::string out = "__ember_udf_" + std::to_string(counter_++);
    current = make_actor_pool_project(current, spec_of(copy->udf), arg_columns, arg_names, out);
    return column_ref(out);
  }

 private:
  int& counter_;
};

NodePtr extract(const NodePtr& n, int& counter) {
  std::vector<NodePtr> children;
  for (const auto& c : n->children) children.push_back(extract(c, counter));
  std::vector<ExprPtr> exprs = n->expressions();
  bool any = false;
  for (const auto& e : exprs) any = any || contains_stateful_udf(*e);
  if (!any) return n->over(std::move(children));

  NodePtr current = children.at(0);
  UdfLifter lifter(counter);
  std::vector<ExprPtr> lifted;
  for (const auto& e : exprs) {
    ExprPtr l = lifter.lift(e, current);
    // Keep the user's column name where the UDF call was the whole expression.
    bool renamed = l != e && output_name(*l) != output_name(*e);
    lifted.push_back(n->expressions_name_outputs() && renamed ? aliased(l, output_name(*e)) : l);
  }
  NodePtr rewritten = n->with_expressions(current, std::move(lifted));
  if (rewritten->schema == n->schema) return rewritten;
  // A node that passes its input through (a filter) now also carries the pools' columns:
  // drop them again.
  std::vector<ExprPtr> keep;
  for (const auto& f : n->schema.fields()) keep.push_back(column_ref(f.name));
  return make_project(rewritten, std::move(keep));
}

}  // namespace

NodePtr extract_actor_pools(const NodePtr& plan) {
  int counter = 0;
  return extract(plan, counter);
}

}  // namespace ember
