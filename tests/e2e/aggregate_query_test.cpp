// Global aggregates (DataFrame::agg) checked against sums computed row by row in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "ember/ember.h"

using namespace ember;

namespace {

RunOptions threads(int n) {
  RunOptions o;
  o.threads = n;
  return o;
}

Table with_nulls() {
  std::vector<std::optional<int64_t>> a{5, std::nullopt, -3, 12, std::nullopt, 7};
  std::vector<std::optional<double>> f{1.5, 2.5, std::nullopt, -4.0, 0.25, std::nullopt};
  std::vector<std::optional<std::string>> s{"pear", "apple", std::nullopt, "zebra", "fig", "kiwi"};
  std::vector<std::optional<bool>> b{true, false, std::nullopt, true, std::nullopt, true};
  Schema schema({{"a", int64()}, {"f", float64()}, {"s", utf8()}, {"b", boolean()}});
  return Table(
      schema,
      {Batch(schema, {Column::from(a), Column::from(f), Column::from(s), Column::from(b)})});
}

}  // namespace

class AggregateThreads : public testing::TestWithParam<int> {};

TEST_P(AggregateThreads, SumOfFilteredExpressionMatchesLoop) {
  const int64_t n = 300000;
  Table t = range(n, 7)
                .with_column("x", col("id") * lit(int64_t{3}) + lit(int64_t{1}))
                .where(col("x") % lit(int64_t{7}) == lit(int64_t{0}))
                .agg({col("x").sum(), col("x").count().alias("n"), col("x").min().alias("lo"),
                      col("x").max().alias("hi"), col("x").mean().alias("avg")})
                .collect(threads(GetParam()));
  int64_t sum = 0, count = 0, lo = std::numeric_limits<int64_t>::max(), hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x = i * 3 + 1;
    if (x % 7 != 0) continue;
    sum += x;
    ++count;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  ASSERT_EQ(t.num_rows(), 1);
  EXPECT_EQ(t.schema().field(0).name, "x");
  EXPECT_EQ(t.column("x").value<int64_t>(0), sum);
  EXPECT_EQ(t.column("n").value<int64_t>(0), count);
  EXPECT_EQ(t.column("lo").value<int64_t>(0), lo);
  EXPECT_EQ(t.column("hi").value<int64_t>(0), hi);
  EXPECT_DOUBLE_EQ(t.column("avg").value<double>(0),
                   static_cast<double>(sum) / static_cast<double>(count));
}

INSTANTIATE_TEST_SUITE_P(Threads, AggregateThreads, testing::Values(1, 2, 4));

TEST(Aggregate, SkipsNullsForEveryType) {
  Table t = from_table(with_nulls(), 3)
                .agg({col("a").sum(), col("a").count().alias("a_n"), col("f").sum(),
                      col("f").mean().alias("f_mean"), col("s").min(),
                      col("s").max().alias("s_max"), col("b").sum(), col("b").min().alias("b_min"),
                      col("b").max().alias("b_max"), lit(int64_t{1}).count().alias("rows")})
                .collect();
  ASSERT_EQ(t.num_rows(), 1);
  EXPECT_EQ(t.column("a").value<int64_t>(0), 21);
  EXPECT_EQ(t.column("a_n").value<int64_t>(0), 4);
  EXPECT_DOUBLE_EQ(t.column("f").value<double>(0), 0.25);
  EXPECT_DOUBLE_EQ(t.column("f_mean").value<double>(0), 0.25 / 4);
  EXPECT_EQ(t.column("s").value<std::string>(0), "apple");
  EXPECT_EQ(t.column("s_max").value<std::string>(0), "zebra");
  EXPECT_EQ(t.schema().field(t.schema().index_of("b")).type, int64());
  EXPECT_EQ(t.column("b").value<int64_t>(0), 3);
  EXPECT_FALSE(t.column("b_min").value<bool>(0));
  EXPECT_TRUE(t.column("b_max").value<bool>(0));
  EXPECT_EQ(t.column("rows").value<int64_t>(0), 6);
}

TEST(Aggregate, EmptyInputGivesNullsAndZeroCount) {
  Table t = range(1000, 4)
                .where(col("id") < lit(int64_t{0}))
                .agg({col("id").sum(), col("id").count().alias("n"), col("id").max().alias("hi"),
                      col("id").mean().alias("avg")})
                .collect();
  ASSERT_EQ(t.num_rows(), 1);
  EXPECT_TRUE(t.column("id").is_null(0));
  EXPECT_EQ(t.column("n").value<int64_t>(0), 0);
  EXPECT_TRUE(t.column("hi").is_null(0));
  EXPECT_TRUE(t.column("avg").is_null(0));
}

TEST(Aggregate, FloatSumIsTheSameOnEveryRun) {
  // Values of very different magnitudes make the sum depend on the order of additions.
  std::mt19937_64 rng(7);
  std::vector<double> v(200000);
  for (double& x : v)
    x = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                   static_cast<int>(rng() % 60));
  Schema schema({{"v", float64()}});
  Table input(schema, {Batch(schema, {Column::from(v)})});
  std::optional<double> first;
  for (int run = 0; run < 5; ++run) {
    Table t = from_table(input, 16).agg({col("v").sum()}).collect(threads(1 + run % 3));
    const double s = t.column("v").value<double>(0);
    if (!first) first = s;
    EXPECT_EQ(s, *first) << "run " << run;
  }
}

TEST(Aggregate, ResultFeedsFurtherOperators) {
  Table t = range(100, 3)
                .agg({col("id").sum().alias("total"), col("id").count().alias("n")})
                .with_column("avg", col("total") / col("n"))
                .where(col("n") > lit(int64_t{0}))
                .collect();
  ASSERT_EQ(t.num_rows(), 1);
  EXPECT_EQ(t.column("total").value<int64_t>(0), 4950);
  EXPECT_EQ(t.column("avg").value<int64_t>(0), 49);
}

TEST(Aggregate, OfALimitAggregatesOnlyTheFirstRows) {
  Table t = range(1000, 5).limit(10).agg({col("id").sum()}).collect();
  EXPECT_EQ(t.column("id").value<int64_t>(0), 45);
}

TEST(Aggregate, Int64OverflowIsAnError) {
  std::vector<int64_t> big(4, std::numeric_limits<int64_t>::max() / 2);
  Schema schema({{"v", int64()}});
  Table input(schema, {Batch(schema, {Column::from(big)})});
  try {
    from_table(input, 2).agg({col("v").sum()}).collect();
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("v.sum()"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
  // As float64 it fits.
  Table t = from_table(input, 2).agg({col("v").cast(float64()).sum().alias("v")}).collect();
  EXPECT_DOUBLE_EQ(t.column("v").value<double>(0), 4.0 * static_cast<double>(big[0]));
}

TEST(Aggregate, PlanTimeErrorsNameTheExpression) {
  DataFrame df = range(10);
  try {
    df.agg({col("id") + lit(int64_t{1})});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("(id + 1)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(df.with_column("s", col("id").sum()), InvalidArgument);
  EXPECT_THROW(df.where(col("id").sum() > lit(int64_t{0})), InvalidArgument);
  EXPECT_THROW(df.agg({col("id").sum().sum()}), InvalidArgument);
  EXPECT_THROW(df.agg({}), InvalidArgument);
  EXPECT_THROW(df.agg({col("id").sum(), col("id").max()}), InvalidArgument);  // both "id"
  EXPECT_THROW(df.agg({col("nope").sum()}), InvalidArgument);
  DataFrame text = df.with_column("s", col("id").cast(utf8()));
  try {
    text.agg({col("s").sum()});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("sum() to utf8 in s.sum()"), std::string::npos)
        << e.what();
  }
}

TEST(Aggregate, ExplainShowsTheAggregate) {
  std::string plan = range(10).agg({col("id").max().alias("top")}).explain();
  EXPECT_NE(plan.find("Aggregate id.max().alias(\"top\")"), std::string::npos) << plan;
}

TEST(Aggregate, StatelessUdfInsideAnAggregate) {
  Udf twice = Udf::fn("twice", [](const Batch& b) {
                std::vector<int64_t> out;
                const Column& c = b.column(0);
                for (int64_t i = 0; i < c.size(); ++i) out.push_back(2 * c.value<int64_t>(i));
                return Column::from(out);
              }).returns(int64());
  Table t = range(10, 2).agg({twice(col("id")).sum()}).collect();
  EXPECT_EQ(t.column("twice").value<int64_t>(0), 90);
}

namespace {

/// Two partitions of int32, float32, date32 and timestamp columns with nulls, and a key.
DataFrame narrow_types() {
  ColumnBuilder k(utf8()), i(int32()), f(float32()), d(date32()), t(timestamp_us());
  const int32_t ints[] = {2000000000, 2000000000, -7, 5, 0, 1};
  const float floats[] = {1.5f, NAN, -2.25f, 8.0f, 0.5f, 3.0f};
  for (int r = 0; r < 6; ++r) {
    k.append(r % 2 ? "odd" : "even");
    if (r == 4) {  // a row of nulls
      i.append_null();
      f.append_null();
      d.append_null();
      t.append_null();
      continue;
    }
    i.append(ints[r]);
    f.append(floats[r]);
    d.append(Date{19000 + r * (r % 2 ? 1 : -1)});
    t.append(Timestamp{int64_t{1000} * r * (r % 2 ? -1 : 1)});
  }
  const Schema schema(
      {{"k", utf8()}, {"i", int32()}, {"f", float32()}, {"d", date32()}, {"t", timestamp_us()}});
  return from_table(
      Table(schema, {Batch(schema, {k.finish(), i.finish(), f.finish(), d.finish(), t.finish()})}),
      2);
}

}  // namespace

TEST(Aggregate, NarrowNumbersDatesAndTimestampsAggregateInSqlsTypes) {
  const Table g = narrow_types()
                      .agg({col("i").sum(), col("f").sum(), col("i").mean().alias("i_mean"),
                            col("i").min().alias("i_min"), col("f").max().alias("f_max"),
                            col("f").min().alias("f_min"), col("d").min().alias("d_min"),
                            col("d").max().alias("d_max"), col("t").max().alias("t_max"),
                            col("t").min().alias("t_min")})
                      .collect();
  EXPECT_EQ(g.schema().to_string(),
            "i: int64, f: float64, i_mean: float64, i_min: int32, f_max: float32, "
            "f_min: float32, d_min: date32, d_max: date32, t_max: timestamp[us], "
            "t_min: timestamp[us]");
  // 4,000,000,000 - 7 + 5 + 1: past int32, exact in int64.
  EXPECT_EQ(g.column("i").get(0), Value(int64_t{3999999999}));
  EXPECT_TRUE(std::isnan(g.column("f").value<double>(0)));  // NaN sums to NaN
  EXPECT_DOUBLE_EQ(g.column("i_mean").value<double>(0), 3999999999.0 / 5);
  EXPECT_EQ(g.column("i_min").get(0), Value(int64_t{-7}));
  EXPECT_TRUE(std::isnan(g.column("f_max").value<float>(0)));  // NaN above every number
  EXPECT_EQ(g.column("f_min").value<float>(0), -2.25f);
  EXPECT_EQ(g.column("d_min").get(0), Value(Date{18998}));  // rows 0..5 but 4: 19000, 19001,
  EXPECT_EQ(g.column("d_max").get(0), Value(Date{19005}));  // 18998, 19003, 19005
  EXPECT_EQ(g.column("t_max").get(0), Value(Timestamp{2000}));
  EXPECT_EQ(g.column("t_min").get(0), Value(Timestamp{-5000}));

  // Grouped: the same types per key (odd rows 1, 3, 5; even rows 0, 2 and the null row 4).
  const Table k = narrow_types()
                      .group_by({col("k")})
                      .agg({col("i").sum(), col("f").sum(), col("d").max(), col("t").min()})
                      .collect();
  EXPECT_EQ(k.schema().to_string(), "k: utf8, i: int64, f: float64, d: date32, t: timestamp[us]");
  ASSERT_EQ(k.num_rows(), 2);
  EXPECT_EQ(k.column("k").get(0), Value("even"));
  EXPECT_EQ(k.column("i").get(0), Value(int64_t{1999999993}));
  EXPECT_EQ(k.column("f").get(0), Value(-0.75));
  EXPECT_EQ(k.column("d").get(0), Value(Date{19000}));
  EXPECT_EQ(k.column("t").get(0), Value(Timestamp{0}));
  EXPECT_EQ(k.column("i").get(1), Value(int64_t{2000000006}));
  EXPECT_TRUE(std::isnan(k.column("f").value<double>(1)));
  EXPECT_EQ(k.column("d").get(1), Value(Date{19005}));
  EXPECT_EQ(k.column("t").get(1), Value(Timestamp{-5000}));
}
