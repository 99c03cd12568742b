// The base of every logical plan node: what a query computes, as plain immutable data.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ember/types.h"
#include "expr/expr_node.h"
#include "plan/node_visitor.h"

namespace ember {

struct LogicalNode;
using NodePtr = std::shared_ptr<const LogicalNode>;
/// A set of column names.
using ColumnSet = std::set<std::string>;

/// One node of a logical plan. Each kind is a small struct of its own (plan/nodes/), made by its
/// factory, which computes the output schema and checks types. The virtuals let rewrites work
/// on any node without knowing its kind; a new kind overrides those that apply to it.
struct LogicalNode : std::enable_shared_from_this<LogicalNode> {
  virtual ~LogicalNode() = default;

  std::vector<NodePtr> children;  ///< the inputs: none for a source, else one
  Schema schema;                  ///< output schema

  const LogicalNode& child() const { return *children.at(0); }

  /// One line for explain(), e.g. "Filter (x > 3)".
  virtual std::string describe() const = 0;
  /// Calls the visitor's method for this node's kind.
  virtual void accept(NodeVisitor& v) const = 0;
  /// The same node over other children (same number, same columns where this node reads
  /// them), made through its factory again so that types are checked.
  virtual NodePtr with_children(std::vector<NodePtr> children) const = 0;
  /// The columns of its input (child 0) this node reads to produce the `required` columns of
  /// its output. Unused for a node without children.
  virtual ColumnSet required_input(const ColumnSet& required) const = 0;
  /// The columns child `child` must supply; by default required_input() (one child). A node
  /// with two children (a join) says what each side supplies.
  virtual ColumnSet required_input_of(size_t child, const ColumnSet& required) const {
    (void)child;
    return required_input(required);
  }

  /// This node computing only what `required` asks of its output (a projection drops the
  /// expressions nobody reads); by default the node itself.
  virtual NodePtr without_unused_outputs(const ColumnSet& required) const;
  /// The expressions this node evaluates over its input; none by default.
  virtual std::vector<ExprPtr> expressions() const { return {}; }
  /// True when each of expressions() names a column of the output (a projection, an
  /// aggregate): a rewrite of an expression must then keep its output name.
  virtual bool expressions_name_outputs() const { return false; }
  /// The same node over `input` with `exprs` in place of expressions(), one for one.
  virtual NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const;
  /// For a node that emits each input row at most once, in order, and passes some input columns
  /// through unchanged: those columns, output name -> input name. A filter that reads only
  /// these may run below the node instead. None (the default): a filter stays above it.
  virtual std::optional<std::map<std::string, std::string>> filter_passthrough() const {
    return std::nullopt;
  }
  /// True when the node emits exactly one row per input row, in order (a limit may run below).
  virtual bool preserves_rows() const { return false; }
  /// The files this node itself reads (a scan); none by default.
  virtual std::vector<std::string> files() const { return {}; }

  /// with_children(children), or this very node when they are the ones it has.
  NodePtr over(std::vector<NodePtr> new_children) const;
};

/// Every file the plan's sources read, each once, in plan order.
std::vector<std::string> source_files(const LogicalNode& root);

/// Indented tree, one node a line, root first.
std::string to_string(const LogicalNode& node);

}  // namespace ember
