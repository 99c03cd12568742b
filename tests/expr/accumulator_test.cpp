// Accumulators: each function and type, nulls, merging partial states, NaN and overflow.
#include "expr/accumulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "ember/error.h"

using namespace ember;

namespace {

Accumulator make(AggFunc f, DataType in, DataType out) {
  return Accumulator(f, std::move(in), std::move(out), "x.agg()");
}

}  // namespace

TEST(Accumulator, IntSumMergesPartialsAndSkipsNulls) {
  Accumulator a = make(AggFunc::Sum, int64(), int64());
  Accumulator b = make(AggFunc::Sum, int64(), int64());
  a.update(Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, 2}));
  b.update(Column::from(std::vector<int64_t>{10, 20}).slice(1, 1));
  a.merge(b);
  EXPECT_EQ(a.finish().value<int64_t>(0), 23);
}

TEST(Accumulator, IntSumOverflowOnlyAtTheEndIsAnError) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Accumulator ok = make(AggFunc::Sum, int64(), int64());
  // The running total passes int64's range, the final one does not.
  ok.update(Column::from(std::vector<int64_t>{max, max, -max, -max + 5}));
  EXPECT_EQ(ok.finish().value<int64_t>(0), 5);
  Accumulator bad = make(AggFunc::Sum, int64(), int64());
  bad.update(Column::from(std::vector<int64_t>{max, 1}));
  EXPECT_THROW(bad.finish(), InvalidArgument);
}

TEST(Accumulator, MinMaxOfFloatsPutNaNAboveNumbers) {
  const double nan = std::nan("");
  Accumulator lo = make(AggFunc::Min, float64(), float64());
  Accumulator hi = make(AggFunc::Max, float64(), float64());
  Column c = Column::from(std::vector<double>{nan, 3.0, -1.0, nan});
  lo.update(c);
  hi.update(c);
  EXPECT_EQ(lo.finish().value<double>(0), -1.0);
  EXPECT_TRUE(std::isnan(hi.finish().value<double>(0)));
}

TEST(Accumulator, MinMaxAcrossPartialsOfStrings) {
  Accumulator a = make(AggFunc::Max, utf8(), utf8());
  Accumulator b = make(AggFunc::Max, utf8(), utf8());
  a.update(Column::from(std::vector<std::string>{"b", "a"}));
  b.update(Column::from(std::vector<std::optional<std::string>>{std::nullopt, "c"}));
  a.merge(b);
  EXPECT_EQ(a.finish().value<std::string>(0), "c");
}

TEST(Accumulator, CountMeanAndNoValues) {
  Accumulator count = make(AggFunc::Count, float64(), int64());
  Accumulator mean = make(AggFunc::Mean, int64(), float64());
  Accumulator none = make(AggFunc::Sum, float64(), float64());
  count.update(Column::from(std::vector<std::optional<double>>{1.0, std::nullopt}));
  mean.update(Column::from(std::vector<int64_t>{1, 2}));
  none.update(Column::nulls(float64(), 3));
  EXPECT_EQ(count.finish().value<int64_t>(0), 1);
  EXPECT_DOUBLE_EQ(mean.finish().value<double>(0), 1.5);
  EXPECT_TRUE(none.finish().is_null(0));
}

TEST(Accumulator, BoolSumCountsTruesAtAnyOffset) {
  std::vector<bool> v(150);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0;
  Accumulator a = make(AggFunc::Sum, boolean(), int64());
  a.update(Column::from(v).slice(5, 140));  // rows 5..144: multiples of 3 in [6, 144]
  EXPECT_EQ(a.finish().value<int64_t>(0), 47);
}
