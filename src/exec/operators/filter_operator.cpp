// Projection and filtering of one batch.
#include "exec/batch_transform.h"

#include <cstring>

#include "core/bitmap.h"
#include "ember/error.h"
#include "expr/evaluate.h"
#include "expr/fused_kernels.h"
#include "expr/fused_program.h"

namespace ember {

namespace {

// The compiled program when it can take this batch, else the node-by-node evaluator.
Column evaluate_with(const FusedProgram* program, const ExprNode& e, const Batch& input) {
  if (program) {
    if (std::optional<Column> c = program->evaluate(input)) return std::move(*c);
  }
  return evaluate(e, input);
}

// A filter through the mask the predicate evaluates to (null counts as false).
Batch filter_by_mask(const Batch& input, const Column& mask) {
  if (mask.type().id() == TypeId::Null) return input.slice(0, 0);
  if (mask.null_count() == 0) {
    // Fast exits: nothing or everything passes.
    int64_t set = bitmap::count_set(mask.bool_bits(), mask.offset(), mask.size());
    if (set == input.num_rows()) return input;
    if (set == 0) return input.slice(0, 0);
  }
  return input.filter(mask);
}

// The rows of `input` whose bit is set in `bits` (k of them): int64 and float64 columns without
// nulls compressed directly, the others through Column::filter with the bitmap as a mask.
Batch compress_rows(const Batch& input, const uint8_t* bits, int64_t k) {
  if (input.num_columns() == 0) return Batch::empty_with_rows(k);
  const int64_t n = input.num_rows();
  std::vector<Column> cols;
  cols.reserve(static_cast<size_t>(input.num_columns()));
  std::optional<Column> mask;
  for (const Column& c : input.columns()) {
    const TypeId t = c.type().id();
    if ((t == TypeId::Int64 || t == TypeId::Float64) && c.null_count() == 0) {
      auto out = Buffer::allocate_uninitialized(k * 8);
      // float64 moves as its bits.
      fused::compress_i64(c.values<int64_t>(), bits, n,
                          reinterpret_cast<int64_t*>(out->mutable_data()));
      cols.push_back(Column::from_buffers(c.type(), k, 0, nullptr, std::move(out)));
      continue;
    }
    if (!mask) {
      auto copy = Buffer::allocate_uninitialized(bitmap::bytes_for(n));
      std::memcpy(copy->mutable_data(), bits, static_cast<size_t>(bitmap::bytes_for(n)));
      mask = Column::from_buffers(boolean(), n, 0, nullptr, std::move(copy));
    }
    cols.push_back(c.filter(*mask));
  }
  return Batch(input.schema(), std::move(cols));
}

Batch filter(const PhysicalOp& op, const Batch& input) {
  if (const FusedProgram* program = op.predicate_program.get()) {
    // The predicate goes straight into a reused bitmap: no mask column, no bool intermediate.
    thread_local std::vector<uint8_t> bits;
    bits.resize(static_cast<size_t>(bitmap::bytes_for(input.num_rows())));
    if (std::optional<int64_t> k = program->evaluate_mask(input, bits.data())) {
      if (*k == input.num_rows()) return input;
      if (*k == 0) return input.slice(0, 0);
      return compress_rows(input, bits.data(), *k);
    }
  }
  return filter_by_mask(input, evaluate(*op.predicate, input));
}

}  // namespace

Batch apply_transform(const PhysicalOp& op, const Batch& input) {
  if (op.kind == PhysicalOp::Kind::Project) {
    std::vector<Column> cols;
    cols.reserve(op.exprs.size());
    for (size_t i = 0; i < op.exprs.size(); ++i) {
      const FusedProgram* program = i < op.programs.size() ? op.programs[i].get() : nullptr;
      cols.push_back(evaluate_with(program, *op.exprs[i], input));
    }
    return Batch(op.schema, std::move(cols));
  }
  if (op.kind == PhysicalOp::Kind::Filter) return filter(op, input);
  throw Error("internal: apply_transform on an actor pool op");
}

}  // namespace ember
