// The math functions of one value, shared by the column kernels (math_kernels.cpp) and the
// fused programs (fused_kernels.cpp), so both give the same result for every input.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "expr/function_id.h"

namespace ember::math {

/// x rounded to a multiple of 10^-digits (digits < 0), halves away from zero; false when the
/// result does not fit in int64 (a null row).
inline bool round_int(int64_t x, int digits, int64_t* out) {
  if (digits >= 0) {
    *out = x;
    return true;
  }
  if (digits < -18) {
    *out = 0;
    return true;
  }
  int64_t p = 1;
  for (int k = 0; k < -digits; ++k) p *= 10;
  const int64_t q = x / p, rem = x % p;
  const bool up = (rem < 0 ? -rem : rem) >= p - (rem < 0 ? -rem : rem);
  return !__builtin_mul_overflow(q + (up ? (x < 0 ? -1 : 1) : 0), p, out);
}

/// x rounded to `digits` decimals (negative: tens, hundreds...), halves away from zero.
inline double round_float(double x, int digits) {
  if (digits == 0 || !std::isfinite(x)) return std::round(x);
  const double m = std::pow(10.0, digits);
  const double scaled = x * m;
  if (!std::isfinite(scaled)) return x;  // more digits than a double holds: nothing to round
  return std::round(scaled) / m;
}

/// |x|; INT64_MIN has none in int64 (the caller nulls that row) and gives 0 here.
inline int64_t abs_int(int64_t x) {
  return x == std::numeric_limits<int64_t>::min() ? 0 : x < 0 ? -x : x;
}

inline int64_t sign_int(int64_t x) { return int64_t(x > 0) - (x < 0); }
inline double sign_float(double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }

/// Calls `run(op)` with `op` the one-argument float function `f` (Abs, Round, Floor, Ceil, Sqrt,
/// Exp, Log, Log10, Sign) as a callable of its own type, so that a loop over rows inside `run`
/// inlines it instead of switching per row.
template <class Run>
auto with_unary_float(FunctionId f, int digits, Run run) {
  switch (f) {
    case FunctionId::Abs:
      return run([](double x) { return std::fabs(x); });
    case FunctionId::Round:
      return run([digits](double x) { return round_float(x, digits); });
    case FunctionId::Floor:
      return run([](double x) { return std::floor(x); });
    case FunctionId::Ceil:
      return run([](double x) { return std::ceil(x); });
    case FunctionId::Sqrt:
      return run([](double x) { return std::sqrt(x); });
    case FunctionId::Exp:
      return run([](double x) { return std::exp(x); });
    case FunctionId::Log:
      return run([](double x) { return std::log(x); });
    case FunctionId::Log10:
      return run([](double x) { return std::log10(x); });
    default:
      return run([](double x) { return sign_float(x); });
  }
}

}  // namespace ember::math
