// EMBER_RANK_TIMEOUT_S: read once at ember::init on every rank; a bad value is refused there
// rather than replaced by the default, so that a typo never silently means a minute.
#include "dist/rank_timeout.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "ember/error.h"

namespace ember::dist {

namespace {

/// Longer than this is no limit at all (a year), and would overflow the nanosecond clock.
constexpr double kMaxSeconds = 365.0 * 24 * 3600;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

RankTimeout parse_rank_timeout(std::string_view text) {
  const std::string_view number = trim(text);
  double seconds = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), seconds);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !std::isfinite(seconds) || seconds <= 0 || seconds > kMaxSeconds) {
    throw InvalidArgument("EMBER_RANK_TIMEOUT_S='" + std::string(text) +
                          "' is not a number of seconds (a number > 0 and at most a year, e.g. "
                          "\"60\" or \"2.5\"); unset it for the default of 60 s");
  }
  return RankTimeout{seconds};
}

RankTimeout rank_timeout_from_environment() {
  const char* text = std::getenv("EMBER_RANK_TIMEOUT_S");
  if (text == nullptr || *text == '\0') return RankTimeout{};
  return parse_rank_timeout(text);
}

}  // namespace ember::dist
