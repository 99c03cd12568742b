// Numbers as text for the writers: integers and shortest round-trip floats.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace ember {

/// Room a number written by write_int64 or write_float64 may take.
inline constexpr size_t kMaxNumberChars = 40;

/// Writes `v` at `p`, which has kMaxNumberChars bytes of room; returns the end.
inline char* write_int64(char* p, int64_t v) {
  return std::to_chars(p, p + kMaxNumberChars, v).ptr;
}

/// Shortest text that parses back to exactly `v` ("inf", "-inf", "nan" for non-finite). A value
/// that would print like an integer gets ".0" so that readers infer float64, not int64. Writes
/// at `p`, which has kMaxNumberChars bytes of room (24 at most are used, plus ".0"); returns
/// the end.
inline char* write_float64(char* p, double v) {
  char* end = std::to_chars(p, p + kMaxNumberChars - 2, v).ptr;
  const auto n = static_cast<size_t>(end - p);
  if (std::isfinite(v) && std::memchr(p, '.', n) == nullptr && std::memchr(p, 'e', n) == nullptr) {
    *end++ = '.';
    *end++ = '0';
  }
  return end;
}

inline void append_int64(std::string& out, int64_t v) {
  char buf[kMaxNumberChars];
  out.append(buf, write_int64(buf, v));
}

/// write_float64, appended to `out`.
inline void append_float64(std::string& out, double v) {
  char buf[kMaxNumberChars];
  out.append(buf, write_float64(buf, v));
}

}  // namespace ember
