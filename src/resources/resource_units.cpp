// Human-readable quantities for resource budgets and admission errors.
#include "resources/resource_units.h"

#include <cmath>
#include <cstdio>

namespace ember {
namespace {

/// Prints `value` with at most `decimals` decimals and drops trailing zeros.
std::string trimmed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string s(text);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::string format_amount(double amount) { return trimmed(amount, 3); }

std::string format_bytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024 && bytes > -1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (std::fabs(value) >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return trimmed(value, 1) + " " + kUnits[unit];
}

std::string format_units(double amount, const char* singular) {
  std::string s = format_amount(amount) + " " + singular;
  if (!(amount > 0 && amount <= 1)) s += "s";
  return s;
}

}  // namespace ember
