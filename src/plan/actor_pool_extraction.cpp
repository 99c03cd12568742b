// Lifting stateful UDF calls and downloads out of any node's expressions, through the node's
// virtuals.
#include "plan/actor_pool_extraction.h"

#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "plan/nodes/actor_pool_project_node.h"
#include "plan/nodes/project_node.h"
#include "plan/nodes/url_download_node.h"
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

/// Lifts stateful UDF calls and downloads out of expressions evaluated over `current`,
/// chaining an ActorPoolProject (or a UrlDownload) per call (post-order, so a UDF whose argument
/// is another call's result runs after it). Returns the rewritten expression; `current` grows.
class CallLifter {
 public:
  explicit CallLifter(int& counter) : counter_(counter) {}

  ExprPtr lift(const ExprPtr& e, NodePtr& current) {
    if (!contains_lifted_call(*e)) return e;
    auto copy = std::make_shared<ExprNode>(*e);
    for (auto& c : copy->children) c = lift(c, current);
    if (!is_lifted_call(*copy)) return copy;
    if (copy->kind == ExprKind::Function) return lift_download(*copy, *e, current);

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
  /// `call`: the url_download with its argument lifted already; `written`: as the user wrote it.
  ExprPtr lift_download(const ExprNode& call, const ExprNode& written, NodePtr& current) {
    const ExprPtr& arg = call.children.at(0);
    std::string url_column = arg->kind == ExprKind::Column ? arg->name : "";
    if (url_column.empty()) {
      url_column = "__ember_arg_" + std::to_string(counter_++);
      current = append_columns(current, {{url_column, arg}});
    }
    std::string out = "__ember_download_" + std::to_string(counter_++);
    current = make_url_download(current, url_column, output_name(*written.children.at(0)), out,
                                download_options_of(call));
    return column_ref(out);
  }

  int& counter_;
};

NodePtr extract(const NodePtr& n, int& counter) {
  std::vector<NodePtr> children;
  for (const auto& c : n->children) children.push_back(extract(c, counter));
  std::vector<ExprPtr> exprs = n->expressions();
  bool any = false;
  for (const auto& e : exprs) any = any || contains_lifted_call(*e);
  if (!any) return n->over(std::move(children));

  NodePtr current = children.at(0);
  CallLifter lifter(counter);
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
