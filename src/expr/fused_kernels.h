// The chunk kernels of compiled expressions: one loop per (operator, type, operand shape) over a
// few thousand rows held in L1-resident scratch, written so that compilers vectorise them.
#pragma once

#include <cstdint>

#include "expr/expr_node.h"
#include "expr/function_id.h"

namespace ember::fused {

/// Which operands of a binary kernel are vectors (a column or a register) and which is one
/// scalar broadcast to every row. A scalar operand points at its single value.
enum class Shape : uint8_t { VecVec, VecScalar, ScalarVec };

/// Outputs and vector inputs never overlap (the program gives every result its own register).
/// All kernels take `n` rows; bool results are bytes holding 0 or 1.

/// int64 + - *, and / % by a vector or scalar divisor with C++ truncation (% -1 is 0). A result
/// that leaves int64 is written wrapped (INT64_MIN / -1 as INT64_MIN), a zero divisor's as 0;
/// returns true if any row overflowed or had a zero divisor (those rows are null, which the
/// caller must honour).
bool arith_i64(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, int64_t* out, int64_t n);
/// x * scale + offset in one pass; returns true if either step left int64 for some row (null
/// rows, as arith_i64's), so it equals the two separate operations.
bool affine_i64(const int64_t* x, int64_t scale, int64_t offset, int64_t* out, int64_t n);
/// float64 + - * / (IEEE) and % (fmod). Returns true if a % divisor was 0 (a null row).
bool arith_f64(BinaryOp op, Shape s, const double* a, const double* b, double* out, int64_t n);

/// The divisibility test `x % d == 0` for a fixed non-zero d, without dividing: with
/// |d| = odd * 2^shift, x is divisible iff its low `shift` bits are 0 and (x >> shift) * inverse
/// lands in the image of the multiples of `odd` (Granlund and Montgomery; what compilers emit
/// for `x % 7 == 0`).
struct DivisibilityTest {
  uint64_t low_mask = 0;  ///< 2^shift - 1
  int shift = 0;
  bool odd_is_one = true;  ///< |d| is a power of two: only the low bits matter
  uint64_t inverse = 1;    ///< odd^-1 mod 2^64
  uint64_t bound = 0;      ///< floor((2^63 - 1) / odd): multiples map into [-bound, bound]
  /// The test for divisor d (d != 0).
  static DivisibilityTest of(int64_t d);
};
/// out[i] = (x[i] % d == 0) != negate.
void divisible_i64(const int64_t* x, const DivisibilityTest& t, bool negate, uint8_t* out,
                   int64_t n);

/// Comparisons (Eq..Ge) into 0/1 bytes.
void compare_i64(BinaryOp op, Shape s, const int64_t* a, const int64_t* b, uint8_t* out, int64_t n);
void compare_f64(BinaryOp op, Shape s, const double* a, const double* b, uint8_t* out, int64_t n);
/// Booleans as bytes: false < true.
void compare_u8(BinaryOp op, Shape s, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);

/// And / Or of 0/1 bytes (no nulls: Kleene logic reduces to plain logic).
void logic_u8(BinaryOp op, Shape s, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);
/// !x of 0/1 bytes.
void not_u8(const uint8_t* a, uint8_t* out, int64_t n);

/// -x; returns true if some x was INT64_MIN, whose negation does not fit (a null row).
bool negate_i64(const int64_t* a, int64_t* out, int64_t n);
void negate_f64(const double* a, double* out, int64_t n);

/// Casts between the fixed-width types (bool as 0/1 bytes).
void cast_i64_f64(const int64_t* a, double* out, int64_t n);
void cast_u8_i64(const uint8_t* a, int64_t* out, int64_t n);
void cast_u8_f64(const uint8_t* a, double* out, int64_t n);
void cast_i64_u8(const int64_t* a, uint8_t* out, int64_t n);
void cast_f64_u8(const double* a, uint8_t* out, int64_t n);
/// float64 -> int64, truncating; returns true if a value was NaN or out of range (a null row).
bool cast_f64_i64(const double* a, int64_t* out, int64_t n);

/// The math functions of the expression library (fused_function_kernels.cpp), as math_kernels
/// computes them. int64: Abs, Round(digits), Sign (Floor and Ceil are the identity and compile
/// to nothing); returns true if a row's result does not fit (abs(INT64_MIN), a rounding that
/// overflows: null rows).
bool math_i64(FunctionId f, int digits, const int64_t* a, int64_t* out, int64_t n);
/// float64: Abs, Round(digits), Floor, Ceil, Sqrt, Exp, Log, Log10, Sign.
void math_f64(FunctionId f, int digits, const double* a, double* out, int64_t n);
void pow_f64(Shape s, const double* a, const double* b, double* out, int64_t n);
/// std::max(a, b) (max) or std::min(a, b) of each row: clip(x, lo, hi) is min(max(x, lo), hi),
/// which also keeps a NaN x as it is.
void min_max_i64(bool max, Shape s, const int64_t* a, const int64_t* b, int64_t* out, int64_t n);
void min_max_f64(bool max, Shape s, const double* a, const double* b, double* out, int64_t n);

/// when(): out[i] = cond[i] ? a : b, where a and b are vectors, or one value read at every row
/// when their step is 0.
void select_i64(const uint8_t* cond, const int64_t* a, int64_t a_step, const int64_t* b,
                int64_t b_step, int64_t* out, int64_t n);
void select_f64(const uint8_t* cond, const double* a, int64_t a_step, const double* b,
                int64_t b_step, double* out, int64_t n);
void select_u8(const uint8_t* cond, const uint8_t* a, int64_t a_step, const uint8_t* b,
               int64_t b_step, uint8_t* out, int64_t n);

}  // namespace ember::fused
