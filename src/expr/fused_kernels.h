// The chunk kernels of compiled expressions: one loop per (operator, type, operand shape) over a
// few thousand rows held in L1-resident scratch, written so that compilers vectorise them.
#pragma once

#include <cstdint>

#include "expr/expr_node.h"

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

}  // namespace ember::fused
