// Date kernels: microseconds split into days (floor division, so instants before 1970 fall in
// the right day) and the time of day; days become a civil date with core's calendar.
#include "expr/date_kernels.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/civil_date.h"
#include "core/simd_clones.h"
#include "core/timestamp_text.h"
#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

constexpr int64_t kSecond = 1000000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

constexpr std::array<const char*, 7> kUnits = {"year", "month",  "week",  "day",
                                               "hour", "minute", "second"};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

CivilDate civil_of(int64_t micros) { return civil_of_days(floor_div(micros, kDay)); }

// floor(micros / kDay) without a 64-bit division, so that the loops below vectorize: a double's
// quotient is within a millionth of a day of the true one for every int64, so truncating it is at
// most one day off and one step corrects it. The remainder is computed modulo 2^64: the true value
// lies in [-kDay, 2 * kDay), so the wrapped result is exact.
inline int64_t day_of(int64_t micros) {
  int64_t d = static_cast<int64_t>(static_cast<double>(micros) * (1.0 / double(kDay)));
  const auto r = static_cast<int64_t>(static_cast<uint64_t>(micros) -
                                      static_cast<uint64_t>(d) * static_cast<uint64_t>(kDay));
  d += (r >= kDay ? 1 : 0) - (r < 0 ? 1 : 0);
  return d;
}

// The year, month and day loops: built for several x86-64 levels (simd_clones.h); each body is
// branch-free arithmetic over one row.
EMBER_SIMD_CLONES void years(const int64_t* __restrict t, int64_t* __restrict d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = civil_of_days(day_of(t[i])).year;
}
EMBER_SIMD_CLONES void months(const int64_t* __restrict t, int64_t* __restrict d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = civil_of_days(day_of(t[i])).month;
}
EMBER_SIMD_CLONES void days(const int64_t* __restrict t, int64_t* __restrict d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = civil_of_days(day_of(t[i])).day;
}

// Runs `f` over every instant: one loop per part, so the loop body has no switch.
template <class F>
void fill_parts(const int64_t* t, int64_t* d, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) d[i] = f(t[i]);
}

void parts(FunctionId f, const int64_t* t, int64_t* d, int64_t n) {
  auto in_day = [](int64_t x) { return x - floor_div(x, kDay) * kDay; };
  switch (f) {
    case FunctionId::DtYear:
      return years(t, d, n);
    case FunctionId::DtMonth:
      return months(t, d, n);
    case FunctionId::DtDay:
      return days(t, d, n);
    case FunctionId::DtHour:
      return fill_parts(t, d, n, [&](int64_t x) { return in_day(x) / kHour; });
    case FunctionId::DtMinute:
      return fill_parts(t, d, n, [&](int64_t x) { return in_day(x) % kHour / kMinute; });
    case FunctionId::DtSecond:
      return fill_parts(t, d, n, [&](int64_t x) { return in_day(x) % kMinute / kSecond; });
    default:  // DtDayOfWeek: 1970-01-01 was a Thursday (4)
      return fill_parts(t, d, n, [](int64_t x) {
        const int64_t days = floor_div(x, kDay);
        return (days + 3) - floor_div(days + 3, 7) * 7 + 1;
      });
  }
}

// The start of t's unit, in 128 bits: near the ends of the int64 range it may not fit.
__int128 truncated(const std::string& unit, int64_t t) {
  const int64_t days = floor_div(t, kDay);
  if (unit == "year" || unit == "month") {
    const CivilDate c = civil_of(t);
    return __int128(days_from_civil(c.year, unit == "year" ? 1 : c.month, 1)) * kDay;
  }
  if (unit == "week") return __int128(days - ((days + 3) - floor_div(days + 3, 7) * 7)) * kDay;
  const int64_t step = unit == "day"      ? kDay
                       : unit == "hour"   ? kHour
                       : unit == "minute" ? kMinute
                                          : kSecond;
  return __int128(floor_div(t, step)) * step;
}

// dt_truncate over a column: an instant whose unit starts before the earliest timestamp
// (about 290,000 BC) is null.
Column truncated_column(const std::string& unit, const Column& ts) {
  const int64_t n = ts.size();
  const int64_t* t = ts.values<int64_t>();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  std::vector<uint8_t> fits(size_t(n), 1);
  bool all_fit = true;
  for (int64_t i = 0; i < n; ++i) {
    const __int128 v = truncated(unit, t[i]);
    fits[size_t(i)] = v >= std::numeric_limits<int64_t>::min();
    all_fit = all_fit && fits[size_t(i)];
    d[i] = fits[size_t(i)] ? int64_t(v) : 0;
  }
  std::shared_ptr<Buffer> valid = same_validity(ts);
  if (!all_fit) {
    const uint8_t* f = fits.data();
    auto ok = kernel::bits_where(n, [f](int64_t i) { return f[i] != 0; });
    valid = bitmap::and_of(ok->data(), 0, valid ? valid->data() : nullptr, 0, n);
  }
  return Column::from_buffers(timestamp_us(), n, -1, std::move(valid), out);
}

}  // namespace

void check_truncate_unit(const ExprNode& e, const ExprNode& root) {
  const auto& unit = std::get<std::string>(e.params[0]);
  for (const char* u : kUnits) {
    if (unit == u) return;
  }
  throw InvalidArgument("dt_truncate: unknown unit '" + unit + "' in " + to_string(root) +
                        "; units are year, month, week, day, hour, minute, second");
}

namespace {

// The date of a day: the branch-free calendar where it covers the day, else the general one.
CivilDate civil_of_date(int64_t days) {
  if (days >= kCivilDaysMin && days <= kCivilDaysMax) return civil_of_days(days);
  CivilDate c{};
  civil_from_days(days, &c.year, &c.month, &c.day);
  return c;
}

// The first day of `unit` that holds `days` (a unit below a day leaves the date as it is).
int64_t truncated_day(const std::string& unit, int64_t days) {
  if (unit == "year" || unit == "month") {
    const CivilDate c = civil_of_date(days);
    return days_from_civil(c.year, unit == "year" ? 1 : c.month, 1);
  }
  if (unit == "week") return days - ((days + 3) - floor_div(days + 3, 7) * 7);
  return days;
}

// dt_ functions over a date32 column: the parts of its midnight; dt_truncate gives a date.
Column date32_function(const ExprNode& e, const Column& dates) {
  const int64_t n = dates.size();
  const int32_t* d = dates.values<int32_t>();
  if (e.function == FunctionId::DtTruncate) {
    const auto& unit = std::get<std::string>(e.params[0]);
    auto out = detail::BufferAccess::allocate_uninitialized(n * 4);
    auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*out));
    // The start of a year, month or week of a valid date32 is a valid date32 but for the
    // first days of int32's range, which no calendar in use reaches: clamp rather than wrap.
    for (int64_t i = 0; i < n; ++i) {
      o[i] = int32_t(std::max<int64_t>(truncated_day(unit, d[i]), INT32_MIN));
    }
    return Column::from_buffers(date32(), n, -1, same_validity(dates), out);
  }
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto* o = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  for (int64_t i = 0; i < n; ++i) {
    switch (e.function) {
      case FunctionId::DtYear:
        o[i] = civil_of_date(d[i]).year;
        break;
      case FunctionId::DtMonth:
        o[i] = civil_of_date(d[i]).month;
        break;
      case FunctionId::DtDay:
        o[i] = civil_of_date(d[i]).day;
        break;
      case FunctionId::DtDayOfWeek:
        o[i] = (int64_t{d[i]} + 3) - floor_div(int64_t{d[i]} + 3, 7) * 7 + 1;
        break;
      default:  // hour, minute, second of a midnight
        o[i] = 0;
    }
  }
  return Column::from_buffers(int64(), n, -1, same_validity(dates), out);
}

}  // namespace

Column date_function(const ExprNode& e, const Column& ts) {
  if (ts.type().id() == TypeId::Date32) return date32_function(e, ts);
  if (e.function == FunctionId::DtTruncate) {
    return truncated_column(std::get<std::string>(e.params[0]), ts);
  }
  const int64_t n = ts.size();
  const int64_t* t = ts.values<int64_t>();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  parts(e.function, t, d, n);
  return Column::from_buffers(int64(), n, -1, same_validity(ts), out);
}

}  // namespace ember
