// Chunk kernels of compiled expressions. The hot loops are built for several instruction-set
// levels and picked once at load time (target_clones): AVX-512 or AVX2 where the CPU has them,
// and still any x86-64 everywhere else.
#include "expr/fused_kernels.h"

#include <bit>
#include <cmath>

#include "core/simd_clones.h"
#include "expr/wrapping_arithmetic.h"

namespace ember::fused {

namespace {

// One loop per shape; inlined into each clone so every one is vectorised for its ISA.
template <class T, class R, class F>
inline __attribute__((always_inline)) void binary(Shape s, const T* __restrict a,
                                                  const T* __restrict b, R* __restrict out,
                                                  int64_t n, F f) {
  switch (s) {
    case Shape::VecVec:
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
      return;
    case Shape::VecScalar: {
      const T y = *b;
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
      return;
    }
    case Shape::ScalarVec: {
      const T x = *a;
      for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
      return;
    }
  }
}

// Whether f(a, b, r) holds for some row, r being the result already written.
template <class F>
inline __attribute__((always_inline)) bool any_row(Shape s, const int64_t* __restrict a,
                                                   const int64_t* __restrict b,
                                                   const int64_t* __restrict r, int64_t n, F f) {
  bool any = false;
  switch (s) {
    case Shape::VecVec:
      for (int64_t i = 0; i < n; ++i) any |= f(a[i], b[i], r[i]);
      break;
    case Shape::VecScalar:
      for (int64_t i = 0; i < n; ++i) any |= f(a[i], *b, r[i]);
      break;
    case Shape::ScalarVec:
      for (int64_t i = 0; i < n; ++i) any |= f(*a, b[i], r[i]);
      break;
  }
  return any;
}

template <class T>
inline __attribute__((always_inline)) bool any_zero(Shape s, const T* b, int64_t n) {
  if (s == Shape::VecScalar) return *b == T(0);
  bool zero = false;
  for (int64_t i = 0; i < n; ++i) zero |= b[i] == T(0);
  return zero;
}

template <class T>
inline __attribute__((always_inline)) void compare(BinaryOp op, Shape s, const T* a, const T* b,
                                                   uint8_t* out, int64_t n) {
  switch (op) {
    case BinaryOp::Eq:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x == y; });
    case BinaryOp::Ne:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x != y; });
    case BinaryOp::Lt:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x < y; });
    case BinaryOp::Le:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x <= y; });
    case BinaryOp::Gt:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x > y; });
    default:
      return binary(s, a, b, out, n, [](T x, T y) -> uint8_t { return x >= y; });
  }
}

}  // namespace

namespace {
EMBER_SIMD_CLONES
bool arith_i64_clones(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, int64_t* out,
                      int64_t n) {
  switch (op) {
    case BinaryOp::Add:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return wrap_add(x, y); });
      return any_row(s, a, b, out, n, add_overflowed);
    case BinaryOp::Sub:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return wrap_sub(x, y); });
      return any_row(s, a, b, out, n, sub_overflowed);
    case BinaryOp::Mul:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return wrap_mul(x, y); });
      return any_row(s, a, b, out, n,
                     [](int64_t x, int64_t y, int64_t) { return mul_overflows(x, y); });
    case BinaryOp::Div:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return safe_div(x, y); });
      return any_zero(s, b, n) || any_row(s, a, b, out, n, [](int64_t x, int64_t y, int64_t) {
               return div_overflows(x, y);
             });
    default:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return safe_mod(x, y); });
      return any_zero(s, b, n);
  }
}
}  // namespace

bool arith_i64(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, int64_t* out, int64_t n) {
  return arith_i64_clones(op, s, a, b, out, n);
}

namespace {
EMBER_SIMD_CLONES
bool affine_i64_clones(const int64_t* __restrict x, int64_t scale, int64_t offset, int64_t lo,
                       int64_t hi, int64_t* __restrict out, int64_t n) {
  bool outside = false;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = wrap_add(wrap_mul(x[i], scale), offset);
    outside |= (x[i] < lo) | (x[i] > hi);
  }
  return outside;
}
}  // namespace

bool affine_i64(const int64_t* x, int64_t scale, int64_t offset, int64_t* out, int64_t n) {
  const AffineRange fits = AffineRange::of(scale, offset);
  return affine_i64_clones(x, scale, offset, fits.lo, fits.hi, out, n);
}

namespace {
EMBER_SIMD_CLONES
bool arith_f64_clones(BinaryOp op, Shape s, const double* a, const double* b, double* out,
                      int64_t n) {
  switch (op) {
    case BinaryOp::Add:
      binary(s, a, b, out, n, [](double x, double y) { return x + y; });
      return false;
    case BinaryOp::Sub:
      binary(s, a, b, out, n, [](double x, double y) { return x - y; });
      return false;
    case BinaryOp::Mul:
      binary(s, a, b, out, n, [](double x, double y) { return x * y; });
      return false;
    case BinaryOp::Div:
      binary(s, a, b, out, n, [](double x, double y) { return x / y; });
      return false;
    default:
      binary(s, a, b, out, n, [](double x, double y) { return std::fmod(x, y); });
      return any_zero(s, b, n);
  }
}
}  // namespace

bool arith_f64(BinaryOp op, Shape s, const double* a, const double* b, double* out, int64_t n) {
  return arith_f64_clones(op, s, a, b, out, n);
}

DivisibilityTest DivisibilityTest::of(int64_t d) {
  DivisibilityTest t;
  const uint64_t m = d < 0 ? uint64_t(0) - uint64_t(d) : uint64_t(d);  // |INT64_MIN| = 2^63
  t.shift = std::countr_zero(m);
  t.low_mask = (uint64_t(1) << t.shift) - 1;
  const uint64_t odd = m >> t.shift;
  t.odd_is_one = odd == 1;
  // Newton's iteration doubles the correct low bits of the inverse: 3 (odd*odd = 1 mod 8),
  // then 6, 12, 24, 48, 96.
  uint64_t inv = odd;
  for (int k = 0; k < 5; ++k) inv *= 2 - odd * inv;
  t.inverse = inv;
  t.bound = (~uint64_t(0) >> 1) / odd;
  return t;
}

namespace {
EMBER_SIMD_CLONES
void divisible_i64_clones(const int64_t* __restrict x, const DivisibilityTest& t, bool negate,
                          uint8_t* __restrict out, int64_t n) {
  const uint8_t flip = negate ? 1 : 0;
  const uint64_t mask = t.low_mask, inv = t.inverse, bound = t.bound, twice = 2 * t.bound;
  const int shift = t.shift;
  if (t.odd_is_one) {
    for (int64_t i = 0; i < n; ++i) out[i] = uint8_t((uint64_t(x[i]) & mask) == 0) ^ flip;
  } else if (shift == 0) {
    // The multiples k*odd of the int64 range are exactly the values whose product with the
    // inverse (mod 2^64) is k, with |k| <= bound.
    for (int64_t i = 0; i < n; ++i) out[i] = uint8_t(uint64_t(x[i]) * inv + bound <= twice) ^ flip;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const bool low_zero = (uint64_t(x[i]) & mask) == 0;
      const bool odd_divides = uint64_t(x[i] >> shift) * inv + bound <= twice;
      out[i] = uint8_t(low_zero & odd_divides) ^ flip;
    }
  }
}
}  // namespace

void divisible_i64(const int64_t* x, const DivisibilityTest& t, bool negate, uint8_t* out,
                   int64_t n) {
  divisible_i64_clones(x, t, negate, out, n);
}

namespace {
EMBER_SIMD_CLONES
void compare_i64_clones(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, uint8_t* out,
                        int64_t n) {
  compare(op, s, a, b, out, n);
}
}  // namespace

void compare_i64(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, uint8_t* out,
                 int64_t n) {
  compare_i64_clones(op, s, a, b, out, n);
}

namespace {
EMBER_SIMD_CLONES
void compare_f64_clones(BinaryOp op, Shape s, const double* a, const double* b, uint8_t* out,
                        int64_t n) {
  compare(op, s, a, b, out, n);
}
}  // namespace

void compare_f64(BinaryOp op, Shape s, const double* a, const double* b, uint8_t* out, int64_t n) {
  compare_f64_clones(op, s, a, b, out, n);
}

void compare_u8(BinaryOp op, Shape s, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  compare(op, s, a, b, out, n);
}

void logic_u8(BinaryOp op, Shape s, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  if (op == BinaryOp::And) {
    binary(s, a, b, out, n, [](uint8_t x, uint8_t y) -> uint8_t { return x & y; });
  } else {
    binary(s, a, b, out, n, [](uint8_t x, uint8_t y) -> uint8_t { return x | y; });
  }
}

void not_u8(const uint8_t* __restrict a, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] ^ 1;
}

bool negate_i64(const int64_t* __restrict a, int64_t* __restrict out, int64_t n) {
  bool overflow = false;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = wrap_sub(0, a[i]);
    overflow |= negate_overflows(a[i]);
  }
  return overflow;
}

void negate_f64(const double* __restrict a, double* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = -a[i];
}

namespace {
EMBER_SIMD_CLONES
void cast_i64_f64_clones(const int64_t* __restrict a, double* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(a[i]);
}
}  // namespace

void cast_i64_f64(const int64_t* a, double* out, int64_t n) { cast_i64_f64_clones(a, out, n); }

void cast_u8_i64(const uint8_t* __restrict a, int64_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i];
}

void cast_u8_f64(const uint8_t* __restrict a, double* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i];
}

void cast_i64_u8(const int64_t* __restrict a, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] != 0;
}

void cast_f64_u8(const double* __restrict a, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] != 0.0;  // NaN is true, as in the evaluator
}

bool cast_f64_i64(const double* __restrict a, int64_t* __restrict out, int64_t n) {
  bool unrepresentable = false;
  for (int64_t i = 0; i < n; ++i) {
    const bool ok = a[i] >= -9223372036854775808.0 && a[i] < 9223372036854775808.0;
    out[i] = ok ? static_cast<int64_t>(a[i]) : 0;
    unrepresentable |= !ok;
  }
  return unrepresentable;
}

}  // namespace ember::fused
