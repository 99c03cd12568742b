// Parsing one text field as an int64, float64 or bool: shared by CSV inference and reading.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace ember {

/// The whole of `s` as a decimal int64 (no spaces, no '+').
inline bool parse_int64(std::string_view s, int64_t& out) {
  // Fast path: an optional '-' and 1..18 digits cannot overflow, so no range check is needed.
  // Anything else (longer, or not plain digits) takes std::from_chars, which decides.
  const bool negative = !s.empty() && s[0] == '-';
  const size_t digits = s.size() - negative;
  if (digits >= 1 && digits <= 18) {
    uint64_t v = 0;
    bool plain = true;
    for (size_t i = negative; i < s.size(); ++i) {
      const unsigned d = static_cast<unsigned char>(s[i]) - unsigned('0');
      plain &= d < 10;
      v = v * 10 + d;
    }
    if (plain) {
      out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      return true;
    }
  }
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

/// The whole of `s` as a double ("1.5", "-2e10", "inf", "nan"; out-of-range values fail).
inline bool parse_float64(std::string_view s, double& out) {
  // Fast path for the common plain decimal "-123.456" of at most 15 digits: the digits form an
  // exact integer below 2^53 and 10^k (k <= 15) is exact too, so one IEEE division gives the
  // correctly rounded result (Clinger's fast path). Anything else goes to std::from_chars.
  const char* p = s.data();
  const char* const end = p + s.size();
  const bool negative = p < end && *p == '-';
  p += negative;
  uint64_t mantissa = 0;
  int digits = 0;
  int fraction = 0;
  while (p < end && static_cast<unsigned>(*p - '0') < 10 && digits < 16) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
    ++digits;
  }
  if (p < end && *p == '.') {
    const char* const first = ++p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10 && digits < 16) {
      mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
      ++digits;
    }
    fraction = static_cast<int>(p - first);
  }
  if (p == end && digits > 0 && digits <= 15) {
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const double v = static_cast<double>(mantissa) / kPow10[fraction];
    out = negative ? -v : v;
    return true;
  }
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

/// "true" / "false" in any letter case.
inline bool parse_bool(std::string_view s, bool& out) {
  auto equals_lower = [](std::string_view a, std::string_view lower) {
    if (a.size() != lower.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if ((a[i] | 0x20) != lower[i]) return false;
    }
    return true;
  };
  if (equals_lower(s, "true")) {
    out = true;
    return true;
  }
  if (equals_lower(s, "false")) {
    out = false;
    return true;
  }
  return false;
}

}  // namespace ember
