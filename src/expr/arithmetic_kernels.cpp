// Arithmetic over whole columns: nulls, zero divisors and widening around the shared loops.
#include "expr/arithmetic_kernels.h"

#include <cmath>
#include <limits>

#include "core/buffer_access.h"
#include "expr/cast_kernels.h"
#include "expr/fused_kernels.h"
#include "expr/kernel_input.h"
#include "expr/scalar_division.h"
#include "expr/wrapping_arithmetic.h"

namespace ember {

namespace {

// The loops themselves are the compiled programs' (expr/fused_kernels.h), run over whole
// columns: one implementation of each operation serves both ways of evaluating.
template <class T>
std::shared_ptr<Buffer> int_or_float_values(BinaryOp op, const Operand& a, const Operand& b,
                                            int64_t n) {
  auto out = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(T)));
  T* d = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*out));
  T scalar_a{}, scalar_b{};
  const T* pa = kernel::values_or_scalar<T>(a, scalar_a);
  const T* pb = kernel::values_or_scalar<T>(b, scalar_b);
  // Rows whose divisor is 0 are nulled by the caller, whatever value the kernel leaves there.
  if constexpr (std::is_same_v<T, int64_t>) {
    fused::arith_i64(op, kernel::shape_of(a, b), pa, pb, d, n);
  } else {
    fused::arith_f64(op, kernel::shape_of(a, b), pa, pb, d, n);
  }
  return out;
}

// Clears the validity of rows whose divisor is zero; returns the (possibly new) validity.
template <class T>
std::shared_ptr<Buffer> null_zero_divisors(const Column& divisor, std::shared_ptr<Buffer> valid,
                                           int64_t n) {
  const T* p = divisor.values<T>();
  bool any_zero = false;
  for (int64_t i = 0; i < n; ++i) any_zero |= p[i] == T(0);
  if (!any_zero) return valid;
  auto nonzero = kernel::bits_where(n, [p](int64_t i) { return p[i] != T(0); });
  return bitmap::and_of(nonzero->data(), 0, valid ? valid->data() : nullptr, 0, n);
}

// Quotients (or remainders) of an int64 column by a non-zero literal.
std::shared_ptr<Buffer> scalar_quotients(BinaryOp op, const Column& x, int64_t d, int64_t n) {
  auto out = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(int64_t)));
  divide_by_scalar(x.values<int64_t>(), d, op == BinaryOp::Mod,
                   reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out)), n);
  return out;
}

// Whether row i of the int64 result `r` of `op` left int64 (null rows are decided elsewhere).
bool overflowed(BinaryOp op, int64_t x, int64_t y, int64_t r) {
  switch (op) {
    case BinaryOp::Add:
      return add_overflowed(x, y, r);
    case BinaryOp::Sub:
      return sub_overflowed(x, y, r);
    case BinaryOp::Mul:
      return mul_overflows(x, y);
    case BinaryOp::Div:
      return div_overflows(x, y);
    default:
      return false;
  }
}

// Clears the validity of rows whose int64 result overflowed; returns the (possibly new)
// validity. One pass finds whether any did; only then is a mask built.
std::shared_ptr<Buffer> null_overflows(BinaryOp op, const Operand& a, const Operand& b,
                                       const Buffer& values, std::shared_ptr<Buffer> valid,
                                       int64_t n) {
  if (op == BinaryOp::Mod) return valid;
  int64_t sa = 0, sb = 0;
  const int64_t* pa = kernel::values_or_scalar<int64_t>(a, sa);
  const int64_t* pb = kernel::values_or_scalar<int64_t>(b, sb);
  const int64_t* r = reinterpret_cast<const int64_t*>(values.data());
  const int64_t step_a = a.is_scalar ? 0 : 1, step_b = b.is_scalar ? 0 : 1;
  auto bad = [&](int64_t i) { return overflowed(op, pa[i * step_a], pb[i * step_b], r[i]); };
  bool any = false;
  for (int64_t i = 0; i < n; ++i) any |= bad(i);
  if (!any) return valid;
  auto fits = kernel::bits_where(n, [&](int64_t i) { return !bad(i); });
  return bitmap::and_of(fits->data(), 0, valid ? valid->data() : nullptr, 0, n);
}

// Int64 operands of a float64 result become float64 first, so each loop sees one type.
Operand widened(const Operand& o) {
  if (o.type.id() != TypeId::Int64) return o;
  if (o.is_scalar) return Operand::of(Value{double(std::get<int64_t>(o.scalar))}, float64());
  return Operand::of(cast_column(o.column, float64()));
}

}  // namespace

Column arithmetic(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  const bool ints = a.type.id() == TypeId::Int64 && b.type.id() == TypeId::Int64;
  const DataType type = ints ? int64() : float64();
  const bool divides = op == BinaryOp::Div || op == BinaryOp::Mod;
  // A zero scalar divisor nulls every row (float / 0 is IEEE, only float % 0 is null).
  if (a.all_null() || b.all_null() ||
      (divides && (ints || op == BinaryOp::Mod) && b.is_scalar &&
       kernel::scalar_as<double>(b.scalar) == 0)) {
    return Column::nulls(type, n);
  }
  auto valid = kernel::combined_validity(a, b, n);
  if (ints) {
    // A literal divisor (non-zero here) avoids a hardware division per row.
    auto values = divides && b.is_scalar
                      ? scalar_quotients(op, a.column, std::get<int64_t>(b.scalar), n)
                      : int_or_float_values<int64_t>(op, a, b, n);
    if (divides && !b.is_scalar) valid = null_zero_divisors<int64_t>(b.column, valid, n);
    valid = null_overflows(op, a, b, *values, std::move(valid), n);
    return Column::from_buffers(type, n, -1, valid, values);
  }
  const Operand fa = widened(a);
  const Operand fb = widened(b);
  auto values = int_or_float_values<double>(op, fa, fb, n);
  if (op == BinaryOp::Mod && !fb.is_scalar) valid = null_zero_divisors<double>(fb.column, valid, n);
  return Column::from_buffers(type, n, -1, valid, values);
}

Column negate(const Column& c) {
  const int64_t n = c.size();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto valid = c.validity_bits() ? bitmap::copy(c.validity_bits(), c.offset(), n) : nullptr;
  if (c.type().id() == TypeId::Int64) {
    const int64_t* p = c.values<int64_t>();
    if (fused::negate_i64(p, reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out)),
                          n)) {
      // -INT64_MIN does not fit: those rows are null.
      auto fits = kernel::bits_where(n, [p](int64_t i) { return !negate_overflows(p[i]); });
      valid = bitmap::and_of(fits->data(), 0, valid ? valid->data() : nullptr, 0, n);
    }
    return Column::from_buffers(c.type(), n, -1, valid, out);
  }
  const double* p = c.values<double>();
  fused::negate_f64(p, reinterpret_cast<double*>(detail::BufferAccess::mutable_data(*out)), n);
  return Column::from_buffers(c.type(), n, c.null_count(), valid, out);
}

}  // namespace ember
