// divide_by_scalar: one precomputed libdivide divider per call, applied in a branch-free loop.
#include "expr/scalar_division.h"

#include <libdivide.h>

namespace ember {

namespace {

template <class Op>
std::shared_ptr<Buffer> map_rows(const int64_t* x, int64_t n, Op op) {
  auto out = Buffer::allocate_uninitialized(n * int64_t(sizeof(int64_t)));
  int64_t* d = reinterpret_cast<int64_t*>(out->mutable_data());
  for (int64_t i = 0; i < n; ++i) d[i] = op(x[i]);
  return out;
}

}  // namespace

std::shared_ptr<Buffer> divide_by_scalar(const int64_t* x, int64_t d, int64_t n, bool remainder) {
  // -1 is the one divisor whose quotient can overflow; libdivide need not handle it.
  if (d == -1) {
    if (remainder) return map_rows(x, n, [](int64_t) { return int64_t(0); });
    return map_rows(x, n, [](int64_t v) { return int64_t(0 - uint64_t(v)); });
  }
  // A local copy lets the compiler keep the divider in registers and hoist its branches.
  const libdivide::libdivide_s64_t divider = libdivide::libdivide_s64_gen(d);
  if (remainder) {
    return map_rows(x, n, [divider, d](int64_t v) {
      const int64_t q = libdivide::libdivide_s64_do(v, &divider);
      return int64_t(uint64_t(v) - uint64_t(q) * uint64_t(d));  // |q*d| <= |v|: no overflow
    });
  }
  return map_rows(x, n, [divider](int64_t v) { return libdivide::libdivide_s64_do(v, &divider); });
}

}  // namespace ember
