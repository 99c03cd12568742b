// Projection of one batch: the compiled program when it takes the batch, else the evaluator.
#include "exec/operators/project_operator.h"

#include "expr/evaluate.h"
#include "expr/fused_program.h"

namespace ember {

ProjectOperator::ProjectOperator(std::vector<ExprPtr> exprs, const Schema& input, Schema output)
    : exprs_(std::move(exprs)), output_(std::move(output)) {
  for (const auto& e : exprs_) programs_.push_back(FusedProgram::compile(*e, input));
}

Batch ProjectOperator::execute(const Batch& input) const {
  std::vector<Column> cols;
  cols.reserve(exprs_.size());
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (const FusedProgram* program = programs_[i].get()) {
      if (std::optional<Column> c = program->evaluate(input)) {
        cols.push_back(std::move(*c));
        continue;
      }
    }
    cols.push_back(evaluate(*exprs_[i], input));
  }
  return Batch(output_, std::move(cols));
}

}  // namespace ember
