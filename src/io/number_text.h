// Numbers as text for the writers: integers and shortest round-trip floats.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace ember {

inline void append_int64(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

/// Shortest text that parses back to exactly `v` ("inf", "-inf", "nan" for non-finite). A value
/// that would print like an integer gets ".0" so that readers infer float64, not int64.
inline void append_float64(std::string& out, double v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
  if (std::isfinite(v) && std::memchr(buf, '.', size_t(r.ptr - buf)) == nullptr &&
      std::memchr(buf, 'e', size_t(r.ptr - buf)) == nullptr) {
    out.append(".0");
  }
}

}  // namespace ember
