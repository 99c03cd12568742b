// Explode of one batch: each row repeated once per item of its list, null and empty lists
// giving no row (as DuckDB's unnest does).
#pragma once

#include "exec/streaming_operator.h"

namespace ember {

class ExplodeOperator final : public StreamingOperator {
 public:
  /// `column`: the list column's position in the input; `output`: the output schema.
  ExplodeOperator(int column, Schema output) : column_(column), output_(std::move(output)) {}
  Batch execute(const Batch& input) const override;

 private:
  int column_;
  Schema output_;
};

}  // namespace ember
