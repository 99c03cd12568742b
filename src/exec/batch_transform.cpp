// Projection and filtering of one batch.
#include "exec/batch_transform.h"

#include "core/bitmap.h"
#include "ember/error.h"
#include "expr/evaluate.h"

namespace ember {

Batch apply_transform(const PhysicalOp& op, const Batch& input) {
  if (op.kind == PhysicalOp::Kind::Project) {
    std::vector<Column> cols;
    cols.reserve(op.exprs.size());
    for (const auto& e : op.exprs) cols.push_back(evaluate(*e, input));
    return Batch(op.schema, std::move(cols));
  }
  if (op.kind == PhysicalOp::Kind::Filter) {
    Column mask = evaluate(*op.predicate, input);
    if (mask.type().id() == TypeId::Null) return input.slice(0, 0);
    if (mask.null_count() == 0) {
      // Fast exits: nothing or everything passes.
      int64_t set = bitmap::count_set(mask.bool_bits(), mask.offset(), mask.size());
      if (set == input.num_rows()) return input;
      if (set == 0) return input.slice(0, 0);
    }
    return input.filter(mask);
  }
  throw Error("internal: apply_transform on an actor pool op");
}

}  // namespace ember
