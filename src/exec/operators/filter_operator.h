// A filter: the rows of a batch for which the predicate is true (null counts as false).
#pragma once

#include <memory>

#include "exec/streaming_operator.h"
#include "expr/expr_node.h"

namespace ember {

class FusedProgram;

class FilterOperator final : public StreamingOperator {
 public:
  /// Compiles `predicate` for `input` once, here, not per batch.
  FilterOperator(ExprPtr predicate, const Schema& input);
  Batch execute(const Batch& input) const override;

 private:
  ExprPtr predicate_;
  std::shared_ptr<const FusedProgram> program_;  ///< compiled, or null
};

}  // namespace ember
