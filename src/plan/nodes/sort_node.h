// A sort: every input row, ordered by key expressions (stable: ties keep input order).
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// One sort key: an expression over the input and its direction.
struct SortSpec {
  ExprPtr expr;
  bool descending = false;
  bool nulls_first = false;
};

struct SortNode final : LogicalNode {
  std::vector<SortSpec> keys;

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::vector<ExprPtr> expressions() const override;
  NodePtr with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const override;
};

/// At least one key, each of a key type (TypeError naming the key otherwise).
NodePtr make_sort(NodePtr input, std::vector<SortSpec> keys);

/// "x DESC NULLS FIRST, y" for explain(); checks the keys' types against `input` (`op` names the
/// user's method in errors).
std::string describe_sort_keys(const std::vector<SortSpec>& keys);
void check_sort_keys(const std::vector<SortSpec>& keys, const Schema& input, const char* op);

}  // namespace ember
