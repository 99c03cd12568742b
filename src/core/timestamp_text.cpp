// Timestamp text: Howard Hinnant's civil-date algorithms, so no time zone database is needed.
#include "core/timestamp_text.h"

#include <cstdio>

namespace ember {

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

std::string format_timestamp(int64_t micros) {
  constexpr int64_t kDay = 86400LL * 1000000;
  int64_t days = micros / kDay;
  int64_t rest = micros % kDay;
  if (rest < 0) {
    rest += kDay;
    --days;
  }
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  const int64_t secs = rest / 1000000, frac = rest % 1000000;
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u %02lld:%02lld:%02lld",
                        static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                        static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  if (frac) std::snprintf(buf + n, sizeof(buf) - n, ".%06lld", static_cast<long long>(frac));
  return buf;
}

std::string format_date(int64_t days) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

namespace {

// Reads exactly `width` digits at `pos`.
bool digits(std::string_view t, size_t& pos, size_t width, int64_t* out) {
  if (pos + width > t.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = t[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  pos += width;
  *out = v;
  return true;
}

bool expect(std::string_view t, size_t& pos, char c) {
  if (pos >= t.size() || t[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<int64_t> parse_timestamp(std::string_view t) {
  size_t pos = 0;
  int64_t y, mo, d, h = 0, mi = 0, s = 0, frac = 0;
  if (!digits(t, pos, 4, &y) || !expect(t, pos, '-') || !digits(t, pos, 2, &mo) ||
      !expect(t, pos, '-') || !digits(t, pos, 2, &d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  if (pos < t.size() && (t[pos] == ' ' || t[pos] == 'T')) {
    ++pos;
    if (!digits(t, pos, 2, &h) || !expect(t, pos, ':') || !digits(t, pos, 2, &mi) ||
        !expect(t, pos, ':') || !digits(t, pos, 2, &s))
      return std::nullopt;
    if (h > 23 || mi > 59 || s > 60) return std::nullopt;
    if (pos < t.size() && t[pos] == '.') {
      ++pos;
      int64_t scale = 100000;
      size_t n = 0;
      while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9' && n < 9) {
        if (scale) frac += (t[pos] - '0') * scale;
        scale /= 10;
        ++pos;
        ++n;
      }
      if (n == 0) return std::nullopt;
    }
  }
  const std::string_view tail = t.substr(pos);
  if (!tail.empty() && tail != "Z" && tail != "+00:00" && tail != "+00") return std::nullopt;
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60 * 1000000 + s * 1000000 + frac;
}

std::optional<int64_t> parse_date(std::string_view t) {
  size_t pos = 0;
  int64_t y, mo, d;
  if (!digits(t, pos, 4, &y) || !expect(t, pos, '-') || !digits(t, pos, 2, &mo) ||
      !expect(t, pos, '-') || !digits(t, pos, 2, &d) || pos != t.size())
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1) return std::nullopt;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
}

}  // namespace ember
