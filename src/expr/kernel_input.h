// Typed, branch-free row accessors over an Operand, and the dispatch that instantiates one tight
// loop per (column|scalar, column|scalar) shape so kernels never test the shape per row.
#pragma once

#include <string_view>

#include "core/bitmap.h"
#include "expr/operand.h"

namespace ember::kernel {

/// Reads row i of a fixed-width column.
template <class T>
struct ColumnRead {
  const T* p;
  T operator()(int64_t i) const { return p[i]; }
};
/// Returns the same scalar for every row.
template <class T>
struct ScalarRead {
  T v;
  T operator()(int64_t) const { return v; }
};
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

/// Calls f(read_a, read_b) with accessors of the operands' shapes (at most one scalar).
template <class T, class F>
void with_readers(const Operand& a, const Operand& b, F&& f) {
  if (a.is_scalar) {
    f(ScalarRead<T>{scalar_as<T>(a.scalar)}, ColumnRead<T>{b.column.values<T>()});
  } else if (b.is_scalar) {
    f(ColumnRead<T>{a.column.values<T>()}, ScalarRead<T>{scalar_as<T>(b.scalar)});
  } else {
    f(ColumnRead<T>{a.column.values<T>()}, ColumnRead<T>{b.column.values<T>()});
  }
}

/// Writes bit i = pred(i) for i in [0, n) into a fresh bitmap, a 64-bit word at a time.
template <class Pred>
std::shared_ptr<Buffer> bits_where(int64_t n, Pred pred) {
  auto out = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* d = out->mutable_data();
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t m = std::min<int64_t>(64, n - base);
    uint64_t w = 0;
    for (int64_t j = 0; j < m; ++j) w |= uint64_t(pred(base + j) ? 1 : 0) << j;
    std::memcpy(d + base / 8, &w, 8);  // buffers are padded to 64 bytes
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
