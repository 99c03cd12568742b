// Chunk kernels of compiled expressions. The hot loops are built for several instruction-set
// levels and picked once at load time (target_clones), bitmap packing checks for AVX-512BW at
// run time: AVX-512 or AVX2 where the CPU has them, and still any x86-64 everywhere else.
#include "expr/fused_kernels.h"

#include <libdivide.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "expr/wrapping_arithmetic.h"

namespace ember::fused {

// ThreadSanitizer's runtime is not up yet when ifunc resolvers run at load time, so sanitized
// thread builds use the portable loops only.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define EMBER_NO_CLONES 1
#endif

// The clones are internal functions behind each public kernel: clang drops target_clones from a
// function that was declared before without it (as the header does).
#if defined(__x86_64__) && defined(__ELF__) && !defined(EMBER_NO_CLONES)
#define EMBER_SIMD_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMBER_SIMD_CLONES
#endif

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
      return false;
    case BinaryOp::Sub:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return wrap_sub(x, y); });
      return false;
    case BinaryOp::Mul:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return wrap_mul(x, y); });
      return false;
    case BinaryOp::Div:
      binary(s, a, b, out, n, [](int64_t x, int64_t y) { return safe_div(x, y); });
      return any_zero(s, b, n);
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
void affine_i64_clones(const int64_t* __restrict x, int64_t scale, int64_t offset,
                       int64_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = wrap_add(wrap_mul(x[i], scale), offset);
}
}  // namespace

void affine_i64(const int64_t* x, int64_t scale, int64_t offset, int64_t* out, int64_t n) {
  affine_i64_clones(x, scale, offset, out, n);
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

void divide_i64_by_scalar(const int64_t* x, int64_t d, bool remainder, int64_t* out, int64_t n) {
  // -1 is the one divisor whose quotient can overflow; libdivide need not handle it.
  if (d == -1) {
    for (int64_t i = 0; i < n; ++i) out[i] = remainder ? 0 : wrap_sub(0, x[i]);
    return;
  }
  // A local copy lets the compiler keep the divider in registers and hoist its branches.
  const libdivide::libdivide_s64_t divider = libdivide::libdivide_s64_gen(d);
  if (remainder) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t q = libdivide::libdivide_s64_do(x[i], &divider);
      out[i] = wrap_sub(x[i], wrap_mul(q, d));  // |q*d| <= |x|: no overflow
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = libdivide::libdivide_s64_do(x[i], &divider);
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

void negate_i64(const int64_t* __restrict a, int64_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = wrap_sub(0, a[i]);
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

int64_t compress_i64(const int64_t* values, const uint8_t* bits, int64_t n, int64_t* out) {
  // One step per kept row, a 64-row word of the bitmap at a time. (AVX-512 vpcompressq measured
  // slower than this at the selectivities filters usually have.)
  int64_t k = 0;
  for (int64_t base = 0; base < n; base += 64) {
    uint64_t word = 0;
    const int64_t left = n - base;
    std::memcpy(&word, bits + base / 8, static_cast<size_t>(std::min<int64_t>(8, (left + 7) / 8)));
    if (left < 64) word &= (uint64_t(1) << left) - 1;
    while (word) {
      out[k++] = values[base + std::countr_zero(word)];
      word &= word - 1;
    }
  }
  return k;
}

namespace {
EMBER_SIMD_CLONES
void fill_sequence_clones(int64_t first, int64_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = first + i;
}
}  // namespace

void fill_sequence(int64_t first, int64_t* out, int64_t n) { fill_sequence_clones(first, out, n); }

void unpack_bits(const uint8_t* bits, int64_t start, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = (bits[(start + i) >> 3] >> ((start + i) & 7)) & 1;
}

namespace {

// Byte j (0 or 1) of x moves to bit 56 + j of x * kGather, and the sum of the bytes to the top
// byte of x * kSum; no partial products overlap in either.
int64_t pack_words(const uint8_t* bytes, uint8_t* out, int64_t n) {
  constexpr uint64_t kGather = 0x0102040810204080ull;
  constexpr uint64_t kSum = 0x0101010101010101ull;
  int64_t ones = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, bytes + i, 8);
    out[i >> 3] = static_cast<uint8_t>((x * kGather) >> 56);
    ones += static_cast<int64_t>((x * kSum) >> 56);
  }
  if (i < n) {
    uint8_t last = 0;
    for (int64_t j = 0; i + j < n; ++j) {
      last |= uint8_t(bytes[i + j] << j);
      ones += bytes[i + j];
    }
    out[i >> 3] = last;
  }
  return ones;
}

#if defined(__x86_64__)
// 64 bytes to 64 bits in one vptestmb.
__attribute__((target("avx512f,avx512bw,popcnt"))) int64_t pack_avx512(const uint8_t* bytes,
                                                                       uint8_t* out, int64_t n) {
  int64_t ones = 0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(bytes + i);
    const uint64_t bits = _mm512_test_epi8_mask(v, v);
    std::memcpy(out + i / 8, &bits, 8);
    ones += static_cast<int64_t>(_mm_popcnt_u64(bits));
  }
  return ones + pack_words(bytes + i, out + i / 8, n - i);
}

bool has_avx512bw() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

}  // namespace

int64_t pack_bits(const uint8_t* bytes, uint8_t* out, int64_t n) {
#if defined(__x86_64__)
  if (has_avx512bw()) return pack_avx512(bytes, out, n);
#endif
  return pack_words(bytes, out, n);
}

}  // namespace ember::fused
