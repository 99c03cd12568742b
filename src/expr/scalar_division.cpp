// divide_by_scalar: one precomputed libdivide divider per call, applied in a branch-free loop.
#include "expr/scalar_division.h"

#include <libdivide.h>

#include "expr/wrapping_arithmetic.h"

namespace ember {

bool divide_by_scalar(const int64_t* x, int64_t d, bool remainder, int64_t* out, int64_t n) {
  // -1 is the one divisor whose quotient can overflow; libdivide need not handle it.
  if (d == -1) {
    bool overflow = false;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = remainder ? 0 : wrap_sub(0, x[i]);
      overflow |= !remainder && div_overflows(x[i], d);
    }
    return overflow;
  }
  // A local copy lets the compiler keep the divider in registers and hoist its branches.
  const libdivide::libdivide_s64_t divider = libdivide::libdivide_s64_gen(d);
  if (remainder) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t q = libdivide::libdivide_s64_do(x[i], &divider);
      out[i] = wrap_sub(x[i], wrap_mul(q, d));  // |q*d| <= |x|: no overflow
    }
    return false;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = libdivide::libdivide_s64_do(x[i], &divider);
  return false;
}

}  // namespace ember
