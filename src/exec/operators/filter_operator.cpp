// Filtering of one batch: the compiled predicate straight into a bitmap where it can, else the
// evaluator's mask.
#include "exec/operators/filter_operator.h"

#include <cstring>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/fixed_width_compress.h"
#include "ember/error.h"
#include "expr/evaluate.h"
#include "expr/fused_program.h"

namespace ember {

namespace {

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
      auto out = detail::BufferAccess::allocate_uninitialized(k * 8);
      // float64 moves as its bits.
      compress_fixed_width(c.values<int64_t>(), bits, 0, n,
                           reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out)));
      cols.push_back(Column::from_buffers(c.type(), k, 0, nullptr, std::move(out)));
      continue;
    }
    if (!mask) {
      auto copy = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
      std::memcpy(detail::BufferAccess::mutable_data(*copy), bits,
                  static_cast<size_t>(bitmap::bytes_for(n)));
      mask = Column::from_buffers(boolean(), n, 0, nullptr, std::move(copy));
    }
    cols.push_back(c.filter(*mask));
  }
  return Batch(input.schema(), std::move(cols));
}

}  // namespace

FilterOperator::FilterOperator(ExprPtr predicate, const Schema& input)
    : predicate_(std::move(predicate)), program_(FusedProgram::compile(*predicate_, input)) {}

Batch FilterOperator::execute(const Batch& input) const {
  if (const FusedProgram* program = program_.get()) {
    // The predicate goes straight into a reused bitmap: no mask column, no bool intermediate.
    thread_local std::vector<uint8_t> bits;
    bits.resize(static_cast<size_t>(bitmap::bytes_for(input.num_rows())));
    if (std::optional<int64_t> k = program->evaluate_mask(input, bits.data())) {
      if (*k == input.num_rows()) return input;
      if (*k == 0) return input.slice(0, 0);
      return compress_rows(input, bits.data(), *k);
    }
  }
  return filter_by_mask(input, evaluate(*predicate_, input));
}

}  // namespace ember
