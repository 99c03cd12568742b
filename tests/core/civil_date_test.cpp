// The branch-free calendar (core/civil_date.h) against the reference one in timestamp_text: every
// day of 20,000 years around 1970, a spread over the whole supported range, and its ends.
#include "core/civil_date.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "core/timestamp_text.h"

namespace ember {
namespace {

void expect_same_date(int64_t days) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  const CivilDate c = civil_of_days(days);
  ASSERT_EQ(c.year, y) << "day " << days;
  ASSERT_EQ(c.month, m) << "day " << days;
  ASSERT_EQ(c.day, d) << "day " << days;
}

TEST(CivilDate, EveryDayOfTwentyThousandYearsMatchesTheReference) {
  for (int64_t days = -3'700'000; days <= 3'700'000; ++days) expect_same_date(days);
}

TEST(CivilDate, SpreadOverTheWholeRangeMatchesTheReference) {
  for (int64_t days = kCivilDaysMin; days <= kCivilDaysMax; days += 9'973) expect_same_date(days);
  // Every timestamp_us instant's day, both ends, and the ends of the range.
  for (int64_t days : {int64_t{-106'751'992}, int64_t{106'751'991}, kCivilDaysMin, kCivilDaysMax})
    expect_same_date(days);
}

TEST(CivilDate, KnownDates) {
  const CivilDate epoch = civil_of_days(0);
  EXPECT_EQ(epoch.year, 1970);
  EXPECT_EQ(epoch.month, 1u);
  EXPECT_EQ(epoch.day, 1u);
  const CivilDate leap = civil_of_days(days_from_civil(2000, 2, 29));
  EXPECT_EQ(leap.year, 2000);
  EXPECT_EQ(leap.month, 2u);
  EXPECT_EQ(leap.day, 29u);
  const CivilDate before = civil_of_days(-1);  // 1969-12-31
  EXPECT_EQ(before.year, 1969);
  EXPECT_EQ(before.month, 12u);
  EXPECT_EQ(before.day, 31u);
}

}  // namespace
}  // namespace ember
