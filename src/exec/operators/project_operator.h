// A projection: one output column per expression, compiled where the compiler covers it.
#pragma once

#include <memory>
#include <vector>

#include "exec/streaming_operator.h"
#include "expr/expr_node.h"

namespace ember {

class FusedProgram;

class ProjectOperator final : public StreamingOperator {
 public:
  /// Compiles each of `exprs` for `input` once, here, not per batch.
  ProjectOperator(std::vector<ExprPtr> exprs, const Schema& input, Schema output);
  Batch execute(const Batch& input) const override;

 private:
  std::vector<ExprPtr> exprs_;
  /// One per expression: its compiled program, or null (evaluated node by node).
  std::vector<std::shared_ptr<const FusedProgram>> programs_;
  Schema output_;
};

}  // namespace ember
