// Parsing one text field as an int64, float64 or bool: shared by CSV inference and reading.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace ember {

/// The whole of `s` as a decimal int64 (no spaces, no '+').
inline bool parse_int64(std::string_view s, int64_t& out) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

/// The whole of `s` as a double ("1.5", "-2e10", "inf", "nan"; out-of-range values fail).
inline bool parse_float64(std::string_view s, double& out) {
  const char* end = s.data() + s.size();
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
