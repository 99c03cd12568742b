// The engine's way into ember::Expr: building one from a tree and reading its tree, which the
// public API keeps private.
#pragma once

#include <memory>
#include <utility>

#include "ember/expr.h"

namespace ember::detail {

/// What the engine may do with an Expr that the public API does not offer.
struct ExprAccess {
  using Node = Expr::Node;
  /// The expression whose tree is `node`.
  static Expr make(std::shared_ptr<const Node> node) { return Expr(std::move(node)); }
  /// The tree of `e`.
  static const std::shared_ptr<const Node>& node(const Expr& e) { return e.node_; }
};

}  // namespace ember::detail
