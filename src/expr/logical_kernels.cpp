// Logical kernels: whole 64-row words of values and validity combined with bitwise formulas.
#include "expr/logical_kernels.h"

#include "core/buffer_access.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

// Values and validity of 64 rows of an operand.
struct Words {
  uint64_t value;
  uint64_t valid;
};

Words words_of(const Operand& o, int64_t n, int64_t w) {
  if (o.is_scalar) {
    if (!std::holds_alternative<bool>(o.scalar)) return {0, 0};  // null: unknown
    return {std::get<bool>(o.scalar) ? ~uint64_t(0) : 0, ~uint64_t(0)};
  }
  const Column& c = o.column;
  if (c.type().id() == TypeId::Null) return {0, 0};
  const uint64_t valid =
      c.validity_bits() ? bitmap::read_word(c.validity_bits(), c.offset(), n, w) : ~uint64_t(0);
  return {bitmap::read_word(c.bool_bits(), c.offset(), n, w), valid};
}

}  // namespace

Column logical(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  auto values = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  auto validity = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  uint8_t* dv = detail::BufferAccess::mutable_data(*values);
  uint8_t* dn = detail::BufferAccess::mutable_data(*validity);
  const bool is_and = op == BinaryOp::And;
  for (int64_t w = 0; w < bitmap::words_for(n); ++w) {
    const Words x = words_of(a, n, w);
    const Words y = words_of(b, n, w);
    // A known dominant value (false for &&, true for ||) decides the row whatever the other is.
    const uint64_t dominant_x = is_and ? x.valid & ~x.value : x.valid & x.value;
    const uint64_t dominant_y = is_and ? y.valid & ~y.value : y.valid & y.value;
    const uint64_t valid = (x.valid & y.valid) | dominant_x | dominant_y;
    const uint64_t value = (is_and ? x.value & y.value : x.value | y.value) & valid;
    std::memcpy(dv + 8 * w, &value, 8);
    std::memcpy(dn + 8 * w, &valid, 8);
  }
  // Clear bits past the end so the null count is exact.
  if (n % 64) {
    const int64_t last = n / 64;
    uint64_t v;
    const uint64_t keep = (uint64_t(1) << (n % 64)) - 1;
    std::memcpy(&v, dn + 8 * last, 8);
    v &= keep;
    std::memcpy(dn + 8 * last, &v, 8);
    std::memcpy(&v, dv + 8 * last, 8);
    v &= keep;
    std::memcpy(dv + 8 * last, &v, 8);
  }
  return Column::from_buffers(boolean(), n, -1, validity, values);
}

Column logical_not(const Column& c) {
  const int64_t n = c.size();
  auto values = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*values);
  for (int64_t w = 0; w < bitmap::words_for(n); ++w) {
    uint64_t v = ~bitmap::read_word(c.bool_bits(), c.offset(), n, w);
    const int64_t bits = std::min<int64_t>(64, n - 64 * w);
    if (bits < 64) v &= (uint64_t(1) << bits) - 1;
    std::memcpy(d + 8 * w, &v, 8);
  }
  auto valid = c.validity_bits() ? bitmap::copy(c.validity_bits(), c.offset(), n) : nullptr;
  return Column::from_buffers(boolean(), n, c.null_count(), valid, values);
}

Column is_null_mask(const Column& c) {
  const int64_t n = c.size();
  if (c.type().id() == TypeId::Null) return Column::repeat(Value{true}, boolean(), n);
  if (!c.validity_bits()) return Column::repeat(Value{false}, boolean(), n);
  auto values = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*values);
  for (int64_t w = 0; w < bitmap::words_for(n); ++w) {
    uint64_t v = ~bitmap::read_word(c.validity_bits(), c.offset(), n, w);
    const int64_t bits = std::min<int64_t>(64, n - 64 * w);
    if (bits < 64) v &= (uint64_t(1) << bits) - 1;
    std::memcpy(d + 8 * w, &v, 8);
  }
  return Column::from_buffers(boolean(), n, 0, nullptr, values);
}

}  // namespace ember
