// Scalar values: their types and readable text.
#include <charconv>
#include <string>
#include <system_error>

#include "ember/types.h"

namespace ember {

DataType type_of(const Value& v) {
  switch (v.index()) {
    case 1:
      return boolean();
    case 2:
      return int64();
    case 3:
      return float64();
    case 4:
      return utf8();
    default:
      return DataType();
  }
}

std::string to_string(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    // Shortest text that parses back to the same double.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), *d);
    return std::string(buf, res.ptr);
  }
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  return "null";
}

}  // namespace ember
