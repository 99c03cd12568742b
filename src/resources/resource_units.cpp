// Human-readable quantities for resource budgets and admission errors, and the exact byte
// totals admission compares.
#include "resources/resource_units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ember {
namespace {

/// Prints `value` with at most `decimals` decimals and drops trailing zeros. `value` must be
/// below 1e15 in magnitude, so that the digits fit.
std::string trimmed(long double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*Lf", decimals, value);
  std::string s(text);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::string format_amount(long double amount) {
  // Past 1e15 a fixed-point form is dozens of digits nobody reads (and %f of 1e300 needs
  // 300 characters); the exponent form says how far off the request is.
  if (!(std::fabs(amount) < 1e15L)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6Lg", amount);
    return text;
  }
  return trimmed(amount, 3);
}

std::string format_bytes(ByteTotal bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024 && bytes > -1024) return format_byte_count(bytes) + " B";
  // Exact to 64 bits of mantissa: one decimal of the unit is all that is printed.
  auto value = static_cast<long double>(bytes);
  int unit = -1;
  while (std::fabs(value) >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return trimmed(value, 1) + " " + kUnits[unit];
}

std::string format_byte_count(ByteTotal bytes) {
  const bool negative = bytes < 0;
  // Unsigned, so that the most negative value has a magnitude too.
  auto magnitude = static_cast<unsigned __int128>(bytes);
  if (negative) magnitude = ~magnitude + 1;
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string format_units(long double amount, const char* singular) {
  std::string s = format_amount(amount) + " " + singular;
  if (!(amount > 0 && amount <= 1)) s += "s";
  return s;
}

}  // namespace ember
