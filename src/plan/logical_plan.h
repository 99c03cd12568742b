// Logical plan nodes: what a query computes, as plain immutable data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/types.h"
#include "expr/expr_node.h"
#include "plan/source.h"
#include "udf/udf_spec.h"

namespace ember {

enum class NodeKind { Source, Project, Filter, Limit, Repartition, ActorPoolProject, Aggregate };

struct LogicalNode;
using NodePtr = std::shared_ptr<const LogicalNode>;

/// One plan node. The output schema is computed (and types checked) when the node is made.
struct LogicalNode {
  NodeKind kind = NodeKind::Source;
  std::vector<NodePtr> children;  ///< empty for Source, else exactly one
  Schema schema;                  ///< output schema

  std::shared_ptr<const Source> source;  ///< Source
  std::vector<ExprPtr> exprs;            ///< Project / Aggregate: one per output column
  ExprPtr predicate;                     ///< Filter
  int64_t limit = 0;                     ///< Limit
  int num_partitions = 0;                ///< Repartition

  /// ActorPoolProject: calls `udf` on `arg_columns` (columns of the input), appends the result
  /// as `output_column`; every input column passes through untouched.
  std::shared_ptr<const UdfSpec> udf;
  std::vector<std::string> arg_columns;
  std::vector<std::string> arg_names;  ///< names the actors see (the argument expressions)
  std::string output_column;

  const LogicalNode& child() const { return *children.at(0); }
};

NodePtr make_source(std::shared_ptr<const Source> source);
/// Checks types (TypeError / InvalidArgument) and that output names are unique.
NodePtr make_project(NodePtr input, std::vector<ExprPtr> exprs);
/// The predicate must be bool (TypeError otherwise).
NodePtr make_filter(NodePtr input, ExprPtr predicate);
NodePtr make_limit(NodePtr input, int64_t n);
/// A global aggregate: one output row, one column per expression, each an aggregate
/// (col("x").sum(), possibly aliased). Checks types and that output names are unique.
NodePtr make_aggregate(NodePtr input, std::vector<ExprPtr> aggregates);
NodePtr make_repartition(NodePtr input, int num_partitions);
NodePtr make_actor_pool_project(NodePtr input, std::shared_ptr<const UdfSpec> udf,
                                std::vector<std::string> arg_columns,
                                std::vector<std::string> arg_names, std::string output_column);

/// Every file the plan's sources read, each once, in plan order.
std::vector<std::string> source_files(const LogicalNode& root);

/// Indented tree, one node a line, root first.
std::string to_string(const LogicalNode& node);

}  // namespace ember
