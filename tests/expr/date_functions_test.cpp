// dt_ functions and dt_truncate over instants before, at and long after the epoch, checked
// against the civil calendar; timestamp literals from ISO 8601 text.
#include <gtest/gtest.h>

#include "core/timestamp_text.h"
#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using I = std::optional<int64_t>;

int64_t at(const char* text) { return *parse_timestamp(text); }

Batch instants() {
  return testfn::batch(
      {{"t", Column::from(std::vector<std::optional<Timestamp>>{
                 Timestamp{0}, Timestamp{at("1969-12-31 23:59:59.5")},
                 Timestamp{at("2024-02-29 13:45:30")}, std::nullopt,
                 Timestamp{at("1600-03-01 00:00:00")}, Timestamp{at("9999-12-31 23:59:59")}})}});
}

TEST(DateFunctions, Parts) {
  const Batch b = instants();
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_year(), b)),
            (std::vector<I>{1970, 1969, 2024, std::nullopt, 1600, 9999}));
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_month(), b)),
            (std::vector<I>{1, 12, 2, std::nullopt, 3, 12}));
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_day(), b)),
            (std::vector<I>{1, 31, 29, std::nullopt, 1, 31}));
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_hour(), b)),
            (std::vector<I>{0, 23, 13, std::nullopt, 0, 23}));
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_minute(), b)),
            (std::vector<I>{0, 59, 45, std::nullopt, 0, 59}));
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_second(), b)),
            (std::vector<I>{0, 59, 30, std::nullopt, 0, 59}));
  // 1970-01-01 Thursday, 1969-12-31 Wednesday, 2024-02-29 Thursday, 1600-03-01 Wednesday,
  // 9999-12-31 Friday.
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_day_of_week(), b)),
            (std::vector<I>{4, 3, 4, std::nullopt, 3, 5}));
}

TEST(DateFunctions, Truncate) {
  const Batch b = instants();
  auto truncated = [&](const char* unit) {
    std::vector<std::optional<std::string>> out;
    const Column c = eval(col("t").dt_truncate(unit), b);
    for (int64_t i = 0; i < c.size(); ++i) {
      out.push_back(c.is_null(i) ? std::nullopt
                                 : std::optional(format_timestamp(c.value<Timestamp>(i).micros)));
    }
    return out;
  };
  EXPECT_EQ(truncated("year")[2], "2024-01-01 00:00:00");
  EXPECT_EQ(truncated("month")[1], "1969-12-01 00:00:00");
  EXPECT_EQ(truncated("week")[2], "2024-02-26 00:00:00");  // the Monday before
  EXPECT_EQ(truncated("week")[0], "1969-12-29 00:00:00");
  EXPECT_EQ(truncated("day")[1], "1969-12-31 00:00:00");
  EXPECT_EQ(truncated("hour")[2], "2024-02-29 13:00:00");
  EXPECT_EQ(truncated("minute")[2], "2024-02-29 13:45:00");
  EXPECT_EQ(truncated("second")[1], "1969-12-31 23:59:59");
  EXPECT_EQ(truncated("day")[3], std::nullopt);
  EXPECT_THROW(testfn::type_of_expr(col("t").dt_truncate("fortnight"), b), InvalidArgument);
  // The earliest instants: their year starts before the earliest timestamp, so it is null.
  const Batch edge = testfn::batch(
      {{"t", Column::from(std::vector<Timestamp>{Timestamp{INT64_MIN}, Timestamp{INT64_MAX}})}});
  const Column year = eval(col("t").dt_truncate("year"), edge);
  EXPECT_TRUE(year.is_null(0));
  EXPECT_FALSE(year.is_null(1));
  EXPECT_EQ(eval(col("t").dt_truncate("second"), edge).value<Timestamp>(1).micros,
            INT64_MAX - INT64_MAX % 1000000);
  EXPECT_EQ(values<int64_t>(eval(col("t").dt_year(), edge))[1], I(294247));
}

// The day of an instant comes from a floating-point quotient corrected by one step: the last and
// first microsecond of days near and far from the epoch, and both ends of the range, land on the
// day that exact integer division gives.
TEST(DateFunctions, PartsAtMidnightsFarFromTheEpoch) {
  constexpr int64_t kDay = 86400LL * 1000000;
  std::vector<Timestamp> ts;
  for (int64_t day : {int64_t{-106'751'990}, int64_t{-719'162}, int64_t{-1}, int64_t{0},
                      int64_t{19'782}, int64_t{2'932'896}, int64_t{106'751'990}}) {
    for (int64_t delta : {int64_t{-1}, int64_t{0}, int64_t{1}}) ts.push_back({day * kDay + delta});
  }
  ts.push_back({INT64_MIN});
  ts.push_back({INT64_MAX});
  const Batch b = testfn::batch({{"t", Column::from(ts)}});
  const auto years = values<int64_t>(eval(col("t").dt_year(), b));
  const auto months = values<int64_t>(eval(col("t").dt_month(), b));
  const auto days = values<int64_t>(eval(col("t").dt_day(), b));
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t t = ts[i].micros;
    const int64_t day = t / kDay - ((t % kDay != 0) && (t < 0));
    int64_t y;
    unsigned m, d;
    civil_from_days(day, &y, &m, &d);
    EXPECT_EQ(years[i], I(y)) << format_timestamp(t);
    EXPECT_EQ(months[i], I(m)) << format_timestamp(t);
    EXPECT_EQ(days[i], I(d)) << format_timestamp(t);
  }
}

TEST(DateFunctions, DurationsAreMicroseconds) {
  const Batch b = instants();
  constexpr int64_t kDay = 86400LL * 1000000;
  const Column later = eval(col("ts") + lit(kDay), testfn::batch({{"ts", b.column("t")}}));
  ASSERT_EQ(later.type(), timestamp_us());
  EXPECT_EQ(format_timestamp(later.value<Timestamp>(2).micros), "2024-03-01 13:45:30");
  EXPECT_EQ(
      format_timestamp(eval(lit(kDay) + col("t") - lit(2 * kDay), b).value<Timestamp>(0).micros),
      "1969-12-31 00:00:00");
  const Column gap = eval(col("t") - lit_timestamp("1970-01-01"), b);
  ASSERT_EQ(gap.type(), int64());
  EXPECT_EQ(values<int64_t>(gap)[1], I(-500000));
  EXPECT_TRUE(eval(col("t") + lit(INT64_MAX), b).is_null(2));  // past int64: null
  EXPECT_THROW(testfn::type_of_expr(col("t") + col("t"), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(lit(int64_t{1}) - col("t"), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("t") * lit(int64_t{2}), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("t") + lit(1.5), b), TypeError);
}

TEST(DateFunctions, TimestampLiterals) {
  const Batch b = instants();
  using B = std::optional<bool>;
  EXPECT_EQ(values<bool>(eval(col("t") >= lit_timestamp("2024-01-01"), b)),
            (std::vector<B>{false, false, true, std::nullopt, false, true}));
  EXPECT_EQ((col("t") < lit_timestamp("2024-01-01T12:30:00")).to_string(),
            "(t < lit_timestamp(\"2024-01-01 12:30:00\"))");
  EXPECT_THROW(lit_timestamp("yesterday"), InvalidArgument);
  EXPECT_THROW(testfn::type_of_expr(col("t").str_lower(), b), TypeError);
  const Batch n = testfn::batch({{"n", Column::from(std::vector<int64_t>{1})}});
  EXPECT_THROW(testfn::type_of_expr(col("n").dt_year(), n), TypeError);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using I = std::optional<int64_t>;
using S = std::optional<std::string>;

int32_t day(const char* text) { return int32_t(*parse_date(text)); }

Batch dates() {
  return testfn::batch(
      {{"d", Column::from(std::vector<std::optional<Date>>{
                 Date{0}, Date{day("1969-12-31")}, Date{day("2024-02-29")}, std::nullopt,
                 Date{day("1600-03-01")}, Date{day("9999-12-31")}})}});
}

std::vector<S> texts(const Column& c) {
  std::vector<S> out;
  for (int64_t i = 0; i < c.size(); ++i) {
    out.push_back(c.is_null(i) ? std::nullopt : std::optional(to_string(c.get(i))));
  }
  return out;
}

TEST(Date32, PartsAreThoseOfItsMidnight) {
  const Batch b = dates();
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_year(), b)),
            (std::vector<I>{1970, 1969, 2024, std::nullopt, 1600, 9999}));
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_month(), b)),
            (std::vector<I>{1, 12, 2, std::nullopt, 3, 12}));
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_day(), b)),
            (std::vector<I>{1, 31, 29, std::nullopt, 1, 31}));
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_day_of_week(), b)),
            (std::vector<I>{4, 3, 4, std::nullopt, 3, 5}));
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_hour(), b)),
            (std::vector<I>{0, 0, 0, std::nullopt, 0, 0}));
  const Column week = eval(col("d").dt_truncate("week"), b);
  ASSERT_EQ(week.type(), date32());
  EXPECT_EQ(texts(week)[2], S("2024-02-26"));
  EXPECT_EQ(texts(eval(col("d").dt_truncate("month"), b))[1], S("1969-12-01"));
  EXPECT_EQ(texts(eval(col("d").dt_truncate("year"), b))[2], S("2024-01-01"));
  EXPECT_EQ(texts(eval(col("d").dt_truncate("hour"), b))[2], S("2024-02-29"));
  // The ends of int32's range use the general calendar.
  const Batch far =
      testfn::batch({{"d", Column::from(std::vector<Date>{Date{INT32_MIN}, Date{INT32_MAX}})}});
  int64_t y;
  unsigned m, dd;
  civil_from_days(INT32_MAX, &y, &m, &dd);
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_year(), far))[1], I(y));
  civil_from_days(INT32_MIN, &y, &m, &dd);
  EXPECT_EQ(values<int64_t>(eval(col("d").dt_year(), far))[0], I(y));
}

TEST(Date32, CastsToAndFromTextAndTimestamps) {
  const Batch text =
      testfn::batch({{"s", Column::from(std::vector<std::optional<std::string>>{
                               "2024-02-29", "2023-02-29", "1969-12-31", "2024-1-01", std::nullopt,
                               "2024-01-01 00:00:00", "0001-01-01"})}});
  const Column d = eval(col("s").cast(date32()), text);
  ASSERT_EQ(d.type(), date32());
  // Only days that exist, written YYYY-MM-DD, are dates.
  EXPECT_EQ(texts(d), (std::vector<S>{"2024-02-29", std::nullopt, "1969-12-31", std::nullopt,
                                      std::nullopt, std::nullopt, "0001-01-01"}));
  EXPECT_EQ(texts(eval(col("s").cast(date32()).cast(utf8()), text))[0], S("2024-02-29"));
  // An instant's date is the day it falls in, before 1970 too; a date's instant its midnight.
  const Batch instants = testfn::batch(
      {{"t",
        Column::from(std::vector<Timestamp>{Timestamp{*parse_timestamp("1969-12-31 23:59:59")},
                                            Timestamp{*parse_timestamp("2024-02-29 13:45:30")}})}});
  EXPECT_EQ(texts(eval(col("t").cast(date32()), instants)),
            (std::vector<S>{"1969-12-31", "2024-02-29"}));
  EXPECT_EQ(texts(eval(col("t").cast(date32()).cast(timestamp_us()), instants)),
            (std::vector<S>{"1969-12-31 00:00:00", "2024-02-29 00:00:00"}));
  // A date too far for a timestamp has no instant.
  const Batch far = testfn::batch({{"d", Column::from(std::vector<Date>{Date{INT32_MAX}})}});
  EXPECT_TRUE(eval(col("d").cast(timestamp_us()), far).is_null(0));
  EXPECT_THROW(testfn::type_of_expr(col("d").cast(int64()), far), TypeError);
}

TEST(Date32, ComparesAddsAndSubtracts) {
  const Batch b = dates();
  using B = std::optional<bool>;
  EXPECT_EQ(values<bool>(eval(col("d") >= lit_date("2024-01-01"), b)),
            (std::vector<B>{false, false, true, std::nullopt, false, true}));
  EXPECT_EQ(values<bool>(eval(col("d") == lit_date("1969-12-31"), b))[1], B(true));
  // Printed as the call that makes it (bare, 2024-01-01 would read as a subtraction).
  EXPECT_EQ((col("d") >= lit_date("2024-01-01")).to_string(), "(d >= lit_date(\"2024-01-01\"))");
  EXPECT_THROW(lit_date("2023-02-29"), InvalidArgument);
  EXPECT_THROW(lit_date("2024-01-01 10:00:00"), InvalidArgument);
  const Column next = eval(col("d") + lit(int64_t{1}), b);
  ASSERT_EQ(next.type(), date32());
  EXPECT_EQ(texts(next)[2], S("2024-03-01"));
  EXPECT_EQ(texts(eval(col("d") - lit(int64_t{365}), b))[0], S("1969-01-01"));
  const Column gap = eval(col("d") - lit_date("2024-01-01"), b);
  ASSERT_EQ(gap.type(), int64());
  EXPECT_EQ(values<int64_t>(gap)[2], I(59));
  const Batch far = testfn::batch({{"d", Column::from(std::vector<Date>{Date{INT32_MAX}})}});
  EXPECT_TRUE(eval(col("d") + lit(int64_t{1}), far).is_null(0));  // past int32: null
  EXPECT_THROW(testfn::type_of_expr(col("d") + col("d"), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("d") < lit_timestamp("2024-01-01"), b), TypeError);
  EXPECT_EQ(values<bool>(eval(col("d").is_in({Value{Date{0}}}), b))[0], B(true));
}

}  // namespace
}  // namespace ember
