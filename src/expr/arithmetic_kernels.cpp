// Arithmetic kernels: one tight loop per (operator, type, operand shape).
#include "expr/arithmetic_kernels.h"

#include <cmath>
#include <limits>

#include "core/buffer_access.h"
#include "expr/cast_kernels.h"
#include "expr/kernel_input.h"
#include "expr/scalar_division.h"
#include "expr/wrapping_arithmetic.h"

namespace ember {

namespace {

using kernel::with_readers;

template <class T, class Op>
std::shared_ptr<Buffer> apply(const Operand& a, const Operand& b, int64_t n, Op op) {
  auto out = Buffer::allocate_uninitialized(n * int64_t(sizeof(T)));
  T* d = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*out));
  with_readers<T>(a, b, [&](auto ra, auto rb) {
    for (int64_t i = 0; i < n; ++i) d[i] = op(ra(i), rb(i));
  });
  return out;
}

template <class T>
std::shared_ptr<Buffer> int_or_float_values(BinaryOp op, const Operand& a, const Operand& b,
                                            int64_t n) {
  if constexpr (std::is_same_v<T, int64_t>) {
    switch (op) {
      case BinaryOp::Add:
        return apply<T>(a, b, n, [](T x, T y) { return wrap_add(x, y); });
      case BinaryOp::Sub:
        return apply<T>(a, b, n, [](T x, T y) { return wrap_sub(x, y); });
      case BinaryOp::Mul:
        return apply<T>(a, b, n, [](T x, T y) { return wrap_mul(x, y); });
      case BinaryOp::Div:
        return apply<T>(a, b, n, [](T x, T y) { return safe_div(x, y); });
      default:
        return apply<T>(a, b, n, [](T x, T y) { return safe_mod(x, y); });
    }
  } else {
    switch (op) {
      case BinaryOp::Add:
        return apply<T>(a, b, n, [](T x, T y) { return x + y; });
      case BinaryOp::Sub:
        return apply<T>(a, b, n, [](T x, T y) { return x - y; });
      case BinaryOp::Mul:
        return apply<T>(a, b, n, [](T x, T y) { return x * y; });
      case BinaryOp::Div:
        return apply<T>(a, b, n, [](T x, T y) { return x / y; });
      default:
        return apply<T>(a, b, n, [](T x, T y) { return std::fmod(x, y); });
    }
  }
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
  auto out = Buffer::allocate_uninitialized(n * int64_t(sizeof(int64_t)));
  divide_by_scalar(x.values<int64_t>(), d, op == BinaryOp::Mod,
                   reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out)), n);
  return out;
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
  auto out = Buffer::allocate_uninitialized(n * 8);
  if (c.type().id() == TypeId::Int64) {
    const int64_t* p = c.values<int64_t>();
    int64_t* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
    for (int64_t i = 0; i < n; ++i) d[i] = wrap_sub(0, p[i]);
  } else {
    const double* p = c.values<double>();
    double* d = reinterpret_cast<double*>(detail::BufferAccess::mutable_data(*out));
    for (int64_t i = 0; i < n; ++i) d[i] = -p[i];
  }
  auto valid = c.validity_bits() ? bitmap::copy(c.validity_bits(), c.offset(), n) : nullptr;
  return Column::from_buffers(c.type(), n, c.null_count(), valid, out);
}

}  // namespace ember
