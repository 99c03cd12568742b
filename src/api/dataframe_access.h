// How the engine reaches the logical plan behind a public DataFrame, which keeps it opaque.
#pragma once

#include "ember/dataframe.h"
#include "plan/logical_plan.h"

namespace ember {

struct DataFrame::Plan {
  NodePtr root;
};

namespace detail {

struct DataFrameAccess {
  static DataFrame make(NodePtr root) {
    return DataFrame(std::make_shared<const DataFrame::Plan>(DataFrame::Plan{std::move(root)}));
  }
  static const NodePtr& root(const DataFrame& frame) { return frame.plan_->root; }
};

}  // namespace detail
}  // namespace ember
