// Parsing int64 and float64 fields eight digits at a time, for fields that sit in a buffer with
// readable bytes after them (ChunkedFile's padding): no per-digit loop, so no branch on each
// field's length. Whatever these do not take falls back to scalar_parsing.h, so the results and
// the accepted forms are exactly those of parse_int64 / parse_float64.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "io/scalar_parsing.h"

namespace ember {

namespace padded_detail {

constexpr uint64_t kOnes = 0x0101010101010101ull;

/// The first `len` (1..8) bytes at `p` as digits: true and their value, or false when one of
/// them is not '0'..'9'. Reads 8 bytes.
inline bool eight_digits(const char* p, unsigned len, uint64_t& value) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  // Little-endian: p[0] is the low byte. Shifting left by the missing bytes right-aligns the
  // digits (the last digit in the high byte) and lets '0's in at the low, most significant, end.
  const unsigned shift = 8 * (8 - len);
  w = (w << shift) | ((kOnes * '0') & ((uint64_t{1} << shift) - 1));
  // Every byte in '0'..'9': its high nibble is 3, and adding 6 keeps it 3 (no carry from a-f).
  const uint64_t high = w & (kOnes * 0xF0);
  const uint64_t carried = (w + kOnes * 0x06) & (kOnes * 0xF0);
  if ((high | (carried >> 4)) != kOnes * 0x33) return false;
  uint64_t d = w - kOnes * '0';                       // one digit per byte, most significant first
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;    // two-digit numbers in 16-bit lanes
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;  // four-digit numbers in 32-bit lanes
  value = (d * 10000 + (d >> 32)) & 0xFFFFFFFFull;
  return true;
}

/// Up to 16 digits at `p` (reads 16 bytes); false if `len` is 0 or over 16 or a byte is not a
/// digit.
inline bool digits(const char* p, unsigned len, uint64_t& value) {
  if (len - 1 >= 16) return false;  // also rejects 0 (unsigned wrap)
  if (len <= 8) return eight_digits(p, len, value);
  uint64_t high, low;
  if (!eight_digits(p, len - 8, high) || !eight_digits(p + len - 8, 8, low)) return false;
  value = high * 100000000ull + low;
  return true;
}

}  // namespace padded_detail

/// parse_int64 for a field whose first 32 bytes are readable (past its end too).
inline bool parse_int64_padded(std::string_view s, int64_t& out) {
  const bool negative = !s.empty() && s[0] == '-';
  uint64_t v;
  // 16 digits cannot overflow; anything longer or odd goes to the general parser, which decides.
  if (padded_detail::digits(s.data() + negative, static_cast<unsigned>(s.size() - negative), v)) {
    out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }
  return parse_int64(s, out);
}

/// parse_float64 for a field whose first 32 bytes are readable (past its end too).
/// Plain decimals of up to 15 digits ("-12.345") take Clinger's fast path, as parse_float64 does.
inline bool parse_float64_padded(std::string_view s, double& out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  const bool negative = !s.empty() && s[0] == '-';
  const char* p = s.data() + negative;
  const size_t len = s.size() - negative;
  if (len >= 1 && len <= 17) {
    // The first '.', found a word at a time (the lowest flagged byte of each word is exact).
    uint64_t w0, w1;
    std::memcpy(&w0, p, 8);
    std::memcpy(&w1, p + 8, 8);
    auto dots = [](uint64_t w) {
      const uint64_t x = w ^ (padded_detail::kOnes * '.');
      return (x - padded_detail::kOnes) & ~x & (padded_detail::kOnes * 0x80);
    };
    const uint64_t d0 = dots(w0), d1 = dots(w1);
    const size_t dot = d0 ? std::countr_zero(d0) / 8 : d1 ? 8 + std::countr_zero(d1) / 8 : 16;
    const size_t int_len = dot < len ? dot : len;
    const size_t frac_len = dot < len ? len - dot - 1 : 0;
    uint64_t whole = 0, fraction = 0;
    const bool ok =
        int_len <= 8 && frac_len <= 8 && int_len + frac_len >= 1 && int_len + frac_len <= 15 &&
        (int_len == 0 || padded_detail::eight_digits(p, unsigned(int_len), whole)) &&
        (frac_len == 0 || padded_detail::eight_digits(p + dot + 1, unsigned(frac_len), fraction));
    if (ok) {
      // Exact integer below 2^53 over an exact power of ten: one correctly rounded division.
      const uint64_t mantissa = whole * static_cast<uint64_t>(kPow10[frac_len]) + fraction;
      const double v = static_cast<double>(mantissa) / kPow10[frac_len];
      out = negative ? -v : v;
      return true;
    }
  }
  return parse_float64(s, out);
}

}  // namespace ember
