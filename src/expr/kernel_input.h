// Typed, branch-free row accessors over an Operand, and the dispatch that instantiates one tight
// loop per (column|scalar, column|scalar) shape so kernels never test the shape per row.
#pragma once

#include <string_view>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "expr/fused_kernels.h"
#include "expr/operand.h"

namespace ember::kernel {

/// Reads row i of a utf8 column as a view.
struct Utf8Read {
  const int32_t* o;
  const char* c;
  std::string_view operator()(int64_t i) const {
    return std::string_view(c + o[i], static_cast<size_t>(o[i + 1] - o[i]));
  }
};

/// The scalar of a numeric operand as T (int64 widens to double).
template <class T>
T scalar_as(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<T>(*i);
  if (auto* d = std::get_if<double>(&v)) return static_cast<T>(*d);
  if (auto* b = std::get_if<bool>(&v)) return static_cast<T>(*b);
  return T{};
}

/// The shape of a binary kernel over `a` and `b` (never both scalars: the evaluator
/// materialises one of them first).
inline fused::Shape shape_of(const Operand& a, const Operand& b) {
  if (a.is_scalar) return fused::Shape::ScalarVec;
  return b.is_scalar ? fused::Shape::VecScalar : fused::Shape::VecVec;
}

/// The values a kernel reads for `o`: the column's, or `slot` holding the scalar.
template <class T>
const T* values_or_scalar(const Operand& o, T& slot) {
  if (!o.is_scalar) return o.column.values<T>();
  slot = scalar_as<T>(o.scalar);
  return &slot;
}

/// Writes bit i = pred(i) for i in [0, n) into a fresh bitmap. Eight predicates at a time land
/// in the bytes of one word (independent, so they pipeline), and one multiply gathers those
/// eight 0/1 bytes into the eight bits of one output byte.
template <class Pred>
std::shared_ptr<Buffer> bits_where(int64_t n, Pred pred) {
  auto out = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  // Byte j (0 or 1) of x moves to bit 56 + j of x * kGather; no two partial products overlap,
  // so nothing carries into the top byte.
  constexpr uint64_t kGather = 0x0102040810204080ull;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x = 0;
    for (int j = 0; j < 8; ++j) x |= uint64_t(pred(i + j) ? 1 : 0) << (8 * j);
    d[i >> 3] = static_cast<uint8_t>((x * kGather) >> 56);
  }
  if (i < n) {
    uint8_t last = 0;
    for (int64_t j = 0; i + j < n; ++j) last |= uint8_t((pred(i + j) ? 1 : 0) << j);
    d[i >> 3] = last;  // bits past n stay 0; the padding after it is zeroed by the allocation
  }
  return out;
}

/// Validity of a row-wise result over the operands: the AND of the column validities (a valid
/// scalar contributes nothing). nullptr when every row is valid.
inline std::shared_ptr<Buffer> combined_validity(const Operand& a, const Operand& b, int64_t n) {
  const uint8_t* va = a.is_scalar ? nullptr : a.column.validity_bits();
  const uint8_t* vb = b.is_scalar ? nullptr : b.column.validity_bits();
  return bitmap::and_of(va, a.is_scalar ? 0 : a.column.offset(), vb,
                        b.is_scalar ? 0 : b.column.offset(), n);
}

}  // namespace ember::kernel

namespace ember {

/// The validity of a result with the same null rows as `c` (shared when `c` is not a slice).
inline std::shared_ptr<Buffer> same_validity(const Column& c) {
  if (!c.validity_bits()) return nullptr;
  if (c.offset() == 0) return c.validity_buffer();
  return bitmap::copy(c.validity_bits(), c.offset(), c.size());
}

}  // namespace ember
