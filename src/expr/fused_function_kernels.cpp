// Chunk kernels for the expression library's functions in compiled programs: math (through the
// same per-value functions as math_kernels, so results are identical), min/max for clip, and the
// select of when().
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/simd_clones.h"
#include "expr/fused_kernels.h"
#include "expr/math_scalar.h"

namespace ember::fused {

namespace {

template <class T, class F>
inline __attribute__((always_inline)) void shaped(Shape s, const T* __restrict a,
                                                  const T* __restrict b, T* __restrict out,
                                                  int64_t n, F f) {
  const int64_t sa = s == Shape::ScalarVec ? 0 : 1;
  const int64_t sb = s == Shape::VecScalar ? 0 : 1;
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const T y = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
  } else {
    const T x = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
  }
}

template <class T>
inline __attribute__((always_inline)) void select(const uint8_t* __restrict cond,
                                                  const T* __restrict a, int64_t a_step,
                                                  const T* __restrict b, int64_t b_step,
                                                  T* __restrict out, int64_t n) {
  if (a_step == 1 && b_step == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = cond[i] ? a[i] : b[i];
  } else if (a_step == 1) {
    const T y = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = cond[i] ? a[i] : y;
  } else if (b_step == 1) {
    const T x = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = cond[i] ? x : b[i];
  } else {
    const T x = *a, y = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = cond[i] ? x : y;
  }
}

EMBER_SIMD_CLONES
void math_f64_clones(FunctionId f, int digits, const double* __restrict a, double* __restrict out,
                     int64_t n) {
  math::with_unary_float(f, digits, [&](auto op) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i]);
  });
}

EMBER_SIMD_CLONES
void select_i64_clones(const uint8_t* cond, const int64_t* a, int64_t a_step, const int64_t* b,
                       int64_t b_step, int64_t* out, int64_t n) {
  select(cond, a, a_step, b, b_step, out, n);
}

EMBER_SIMD_CLONES
void select_f64_clones(const uint8_t* cond, const double* a, int64_t a_step, const double* b,
                       int64_t b_step, double* out, int64_t n) {
  select(cond, a, a_step, b, b_step, out, n);
}

}  // namespace

bool math_i64(FunctionId f, int digits, const int64_t* __restrict a, int64_t* __restrict out,
              int64_t n) {
  bool bad = false;
  switch (f) {
    case FunctionId::Abs:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = math::abs_int(a[i]);
        bad |= a[i] == std::numeric_limits<int64_t>::min();
      }
      return bad;
    case FunctionId::Round:
      for (int64_t i = 0; i < n; ++i) bad |= !math::round_int(a[i], digits, &out[i]);
      return bad;
    default:  // Sign
      for (int64_t i = 0; i < n; ++i) out[i] = math::sign_int(a[i]);
      return false;
  }
}

void math_f64(FunctionId f, int digits, const double* a, double* out, int64_t n) {
  math_f64_clones(f, digits, a, out, n);
}

void pow_f64(Shape s, const double* a, const double* b, double* out, int64_t n) {
  shaped(s, a, b, out, n, [](double x, double y) { return std::pow(x, y); });
}

void min_max_i64(bool max, Shape s, const int64_t* a, const int64_t* b, int64_t* out, int64_t n) {
  if (max) return shaped(s, a, b, out, n, [](int64_t x, int64_t y) { return std::max(x, y); });
  shaped(s, a, b, out, n, [](int64_t x, int64_t y) { return std::min(x, y); });
}

void min_max_f64(bool max, Shape s, const double* a, const double* b, double* out, int64_t n) {
  if (max) return shaped(s, a, b, out, n, [](double x, double y) { return std::max(x, y); });
  shaped(s, a, b, out, n, [](double x, double y) { return std::min(x, y); });
}

void select_i64(const uint8_t* cond, const int64_t* a, int64_t a_step, const int64_t* b,
                int64_t b_step, int64_t* out, int64_t n) {
  select_i64_clones(cond, a, a_step, b, b_step, out, n);
}

void select_f64(const uint8_t* cond, const double* a, int64_t a_step, const double* b,
                int64_t b_step, double* out, int64_t n) {
  select_f64_clones(cond, a, a_step, b, b_step, out, n);
}

void select_u8(const uint8_t* cond, const uint8_t* a, int64_t a_step, const uint8_t* b,
               int64_t b_step, uint8_t* out, int64_t n) {
  select(cond, a, a_step, b, b_step, out, n);
}

}  // namespace ember::fused
