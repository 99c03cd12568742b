// Embedding kernels: each row's two vectors are read where they lie in the item columns (or in
// the literal, converted to float64 once), and reduced in one pass with float64 accumulators.
#include "expr/embedding_kernels.h"

#include <cmath>
#include <vector>

#include "core/buffer_access.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

// One side: its rows' item ranges over float32 or float64 items.
struct VectorSide {
  const Column* lists = nullptr;  // null for a literal
  const float* f32 = nullptr;
  const double* f64 = nullptr;
  std::vector<double> literal;  // the literal's items
  bool literal_null = false;

  bool null_at(int64_t i) const {
    if (!lists) return literal_null;
    if (lists->is_null(i)) return true;
    if (lists->child().null_count() == 0) return false;
    const auto [first, last] = lists->list_range(i);  // a null item: no vector
    for (int64_t k = first; k < last; ++k) {
      if (lists->child().is_null(k)) return true;
    }
    return false;
  }
  std::pair<int64_t, int64_t> range(int64_t i) const {
    return lists ? lists->list_range(i) : std::pair<int64_t, int64_t>{0, int64_t(literal.size())};
  }
};

VectorSide side_of(const Operand& o) {
  VectorSide s;
  if (o.is_scalar) {
    const List* l = std::get_if<List>(&o.scalar);
    s.literal_null = l == nullptr;
    if (l) {
      for (const Value& v : l->items) {
        if (auto* d = std::get_if<double>(&v))
          s.literal.push_back(*d);
        else if (auto* f = std::get_if<float>(&v))
          s.literal.push_back(*f);
        else if (auto* k = std::get_if<int64_t>(&v))
          s.literal.push_back(double(*k));
        else
          s.literal_null = true;  // a null item: no vector
      }
    }
    s.f64 = s.literal.data();
    return s;
  }
  s.lists = &o.column;
  const Column& items = o.column.child();
  if (items.type().id() == TypeId::Float32)
    s.f32 = items.values<float>();
  else
    s.f64 = items.values<double>();
  return s;
}

struct Sums {
  double ab = 0, aa = 0, bb = 0, dd = 0;
};

// Four independent lanes per sum, so the additions pipeline and vectorise (a single
// accumulator chains every addition to the one before).
template <class A, class B>
Sums reduce(const A* a, const B* b, int64_t len) {
  constexpr int kLanes = 4;
  double ab[kLanes] = {}, aa[kLanes] = {}, bb[kLanes] = {}, dd[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= len; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double x = a[k + j], y = b[k + j];
      ab[j] += x * y;
      aa[j] += x * x;
      bb[j] += y * y;
      dd[j] += (x - y) * (x - y);
    }
  }
  for (; k < len; ++k) {
    const double x = a[k], y = b[k];
    ab[0] += x * y;
    aa[0] += x * x;
    bb[0] += y * y;
    dd[0] += (x - y) * (x - y);
  }
  Sums s;
  for (int j = 0; j < kLanes; ++j) {
    s.ab += ab[j];
    s.aa += aa[j];
    s.bb += bb[j];
    s.dd += dd[j];
  }
  return s;
}

Sums sums_of(const VectorSide& a, int64_t fa, const VectorSide& b, int64_t fb, int64_t len) {
  if (a.f32 && b.f32) return reduce(a.f32 + fa, b.f32 + fb, len);
  if (a.f32) return reduce(a.f32 + fa, b.f64 + fb, len);
  if (b.f32) return reduce(a.f64 + fa, b.f32 + fb, len);
  return reduce(a.f64 + fa, b.f64 + fb, len);
}

}  // namespace

Column vector_function(FunctionId f, const Operand& a, const Operand& b, int64_t n) {
  const VectorSide sa = side_of(a), sb = side_of(b);
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto* d = reinterpret_cast<double*>(detail::BufferAccess::mutable_data(*out));
  std::vector<uint8_t> valid(size_t(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    d[i] = 0;
    if (sa.null_at(i) || sb.null_at(i)) continue;
    const auto [fa, la] = sa.range(i);
    const auto [fb, lb] = sb.range(i);
    if (la - fa != lb - fb) continue;
    const Sums s = sums_of(sa, fa, sb, fb, la - fa);
    if (f == FunctionId::Dot) {
      d[i] = s.ab;
    } else if (f == FunctionId::L2Distance) {
      d[i] = std::sqrt(s.dd);
    } else {
      if (s.aa == 0 || s.bb == 0) continue;
      d[i] = s.ab / (std::sqrt(s.aa) * std::sqrt(s.bb));
    }
    valid[size_t(i)] = 1;
  }
  const uint8_t* v = valid.data();
  auto bits = kernel::bits_where(n, [v](int64_t i) { return v[i] != 0; });
  return Column::from_buffers(float64(), n, -1, bits, out);
}

}  // namespace ember
