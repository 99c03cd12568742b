// Days since 1970-01-01 to a proleptic Gregorian date, inline and branch-free for the range
// every timestamp_us instant falls in: the per-row path of dt_year, dt_month and dt_day.
#pragma once

#include <cstdint>

namespace ember {

struct CivilDate {
  int64_t year;
  unsigned month, day;
};

/// The days civil_of_days takes: about 316,000 BC to 2.4 million AD (every timestamp_us instant
/// lies within ±106,751,992 days of 1970). Past the maximum, 4 * n + 3 below would not fit.
inline constexpr int64_t kCivilDaysMin = -116'000'000;
inline constexpr int64_t kCivilDaysMax = 900'000'000;

/// The date of `days` since 1970-01-01 (kCivilDaysMin <= days <= kCivilDaysMax). The count is
/// moved by 800 whole 400-year eras (146,097 days each) so that it is never negative, and counted
/// from a 1 March: a century then has 36,524 days but the last of an era 36,525, a 4-year group
/// 1,461 days, and a year's leap day is its last. Every step is unsigned 32-bit arithmetic by
/// constants (multiplies and shifts), without a branch.
inline CivilDate civil_of_days(int64_t days) {
  constexpr uint32_t kEras = 800;
  const auto n = static_cast<uint32_t>(days + 719468 + int64_t{146097} * kEras);  // from 0000-03-01
  const uint32_t century = (4 * n + 3) / 146097;
  const uint32_t of_century = n - 146097 * century / 4;  // day of the century
  const uint32_t year_of_century = (4 * of_century + 3) / 1461;
  const uint32_t of_year = of_century - 1461 * year_of_century / 4;  // 0 = 1 March
  // 2140 / 2^16 is close enough to 5 / 153 (the months' mean length) that, with this offset, the
  // high half is the month (3 = March ... 14 = February) and the low half / 2140 the day - 1,
  // for every day of a year (checked for all 366).
  const uint32_t md = 2140 * of_year + 197936;
  const uint32_t january = of_year >= 306 ? 1 : 0;  // January and February end the year
  const int64_t year = int64_t{100} * century + year_of_century + january - int64_t{400} * kEras;
  return {year, (md >> 16) - 12 * january, (md & 0xFFFF) / 2140 + 1};
}

}  // namespace ember
