// Relational queries checked against a reference computed row by row in the test.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<int64_t> ints(const Table& t, const std::string& name) {
  Column c = t.column(name);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.value<int64_t>(i));
  return out;
}

RunOptions threads(int n) {
  RunOptions o;
  o.threads = n;
  return o;
}

}  // namespace

class QueryThreads : public testing::TestWithParam<int> {};

TEST_P(QueryThreads, RangeProjectFilterMatchesReference) {
  const int64_t n = 200000;
  Table t = range(n, 7)
                .with_column("x", col("id") * lit(int64_t{3}) + lit(int64_t{1}))
                .where(col("x") % lit(int64_t{7}) == lit(int64_t{0}))
                .collect(threads(GetParam()));
  std::vector<int64_t> expect_id, expect_x;
  for (int64_t i = 0; i < n; ++i) {
    if ((i * 3 + 1) % 7 == 0) {
      expect_id.push_back(i);
      expect_x.push_back(i * 3 + 1);
    }
  }
  EXPECT_EQ(ints(t, "id"), expect_id);  // output order equals input order
  EXPECT_EQ(ints(t, "x"), expect_x);
  EXPECT_EQ(t.schema().to_string(), "id: int64, x: int64");
}

INSTANTIATE_TEST_SUITE_P(Threads, QueryThreads, testing::Values(1, 2, 4));

TEST(Query, SelectRenamesAndComputes) {
  Table t = range(10)
                .select({(col("id") * lit(2.5)).alias("half"), col("id").cast(utf8()).alias("s")})
                .collect();
  ASSERT_EQ(t.num_rows(), 10);
  Column half = t.column("half"), s = t.column("s");
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_DOUBLE_EQ(half.value<double>(i), i * 2.5);
    EXPECT_EQ(s.value<std::string>(i), std::to_string(i));
  }
}

TEST(Query, FromTableWithNullsAndDivisionByZero) {
  Table in = Table::from_columns(
      {{"a", Column::from(std::vector<std::optional<int64_t>>{10, std::nullopt, 7, 9})},
       {"b", Column::from(std::vector<std::optional<int64_t>>{2, 3, 0, std::nullopt})}});
  Table t = from_table(in, 2).with_column("q", col("a") / col("b")).collect();
  Column q = t.column("q");
  ASSERT_EQ(q.size(), 4);
  EXPECT_EQ(q.value<int64_t>(0), 5);
  EXPECT_TRUE(q.is_null(1));
  EXPECT_TRUE(q.is_null(2));  // division by zero is null, not a crash
  EXPECT_TRUE(q.is_null(3));
}

TEST(Query, LimitKeepsFirstRowsInOrder) {
  for (int parts : {1, 3, 16}) {
    Table t = range(100000, parts)
                  .where(col("id") % lit(int64_t{3}) == lit(int64_t{0}))
                  .limit(1000)
                  .collect(threads(2));
    std::vector<int64_t> expect;
    for (int64_t i = 0; expect.size() < 1000; ++i)
      if (i % 3 == 0) expect.push_back(i);
    EXPECT_EQ(ints(t, "id"), expect) << parts << " partitions";
  }
}

TEST(Query, LimitZeroAndLimitAboveSize) {
  EXPECT_EQ(range(100, 4).limit(0).collect().num_rows(), 0);
  EXPECT_EQ(range(100, 4).limit(1000).collect().num_rows(), 100);
}

TEST(Query, LimitStopsReadingEarly) {
  QueryResult r = range(50'000'000, 4).limit(5).execute(threads(2));
  EXPECT_EQ(r.table.num_rows(), 5);
  // Reading all 50M ids would take seconds; the limit ends the scan after a few morsels.
  EXPECT_LT(r.stats.wall_seconds, 30.0);
}

TEST(Query, RepartitionKeepsRowsAndOrder) {
  Table t = range(1000, 3).repartition(10).with_column("y", col("id") + lit(int64_t{1})).collect();
  std::vector<int64_t> expect(1000);
  for (int64_t i = 0; i < 1000; ++i) expect[static_cast<size_t>(i)] = i + 1;
  EXPECT_EQ(ints(t, "y"), expect);
}

TEST(Query, EmptyInput) {
  Table t = range(0, 4).with_column("x", col("id") + lit(int64_t{1})).collect();
  EXPECT_EQ(t.num_rows(), 0);
  EXPECT_EQ(t.schema().num_fields(), 2);
  EXPECT_EQ(range(100).where(col("id") < lit(int64_t{0})).collect().num_rows(), 0);
}

TEST(Query, TypeErrorsAtPlanTime) {
  Table in = Table::from_columns({{"name", Column::from(std::vector<std::string>{"a"})}});
  DataFrame df = from_table(in);
  try {
    df.with_column("bad", col("name") + lit(int64_t{1}));
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("utf8"), std::string::npos) << m;
    EXPECT_NE(m.find("int64"), std::string::npos) << m;
  }
  EXPECT_THROW(df.where(col("name")), TypeError);
  EXPECT_THROW(df.select({col("nope")}), InvalidArgument);
}

TEST(Query, ExecuteReportsStats) {
  QueryResult r = range(1000, 2).where(col("id") < lit(int64_t{10})).execute();
  EXPECT_EQ(r.stats.rows_out, 10);
  EXPECT_GE(r.stats.wall_seconds, 0.0);
  EXPECT_TRUE(r.stats.udfs.empty());
}

TEST(Query, ExplainShowsPlansAndPushedFilter) {
  DataFrame df =
      range(10).with_column("x", col("id") * lit(int64_t{2})).where(col("id") > lit(int64_t{3}));
  std::string e = df.explain();
  EXPECT_NE(e.find("== Logical plan =="), std::string::npos) << e;
  EXPECT_NE(e.find("== Optimized plan =="), std::string::npos) << e;
  // In the optimized plan the filter sits below the projection.
  std::string opt = e.substr(e.find("== Optimized plan =="));
  EXPECT_LT(opt.find("Project"), opt.find("Filter")) << e;
  EXPECT_NE(e.find("== Resources =="), std::string::npos) << e;
}

TEST(Query, ManyPartitionsRandomFilterMatchesReference) {
  std::mt19937_64 rng(7);
  std::vector<std::optional<int64_t>> v(50000);
  for (auto& x : v)
    x = rng() % 10 == 0 ? std::nullopt : std::optional<int64_t>(int64_t(rng() % 1000));
  Table in = Table::from_columns({{"v", Column::from(v)}});
  Table t = from_table(in, 13)
                .where(col("v") > lit(int64_t{500}) || col("v").is_null())
                .collect(threads(3));
  std::vector<std::optional<int64_t>> expect;
  for (auto& x : v)
    if (!x || *x > 500) expect.push_back(x);
  Column c = t.column("v");
  ASSERT_EQ(c.size(), static_cast<int64_t>(expect.size()));
  for (int64_t i = 0; i < c.size(); ++i) {
    const auto& e = expect[static_cast<size_t>(i)];
    ASSERT_EQ(c.is_null(i), !e.has_value()) << i;
    if (e) {
      ASSERT_EQ(c.value<int64_t>(i), *e) << i;
    }
  }
}

TEST(ColumnPruning, ColumnsNothingReadsAreNotComputed) {
  DataFrame df = range(100, 3)
                     .with_column("x", col("id") * lit(int64_t{3}))
                     .with_column("unused", col("id") * lit(int64_t{7}))
                     .where(col("x") > lit(int64_t{10}));
  const std::string plan = df.agg({col("x").sum()}).explain();
  const std::string optimized = plan.substr(plan.find("== Optimized plan =="));
  EXPECT_EQ(optimized.find("unused"), std::string::npos) << plan;
  EXPECT_EQ(df.agg({col("x").sum()}).collect().column("x").value<int64_t>(0), 14850 - 3 - 6 - 9);
  // The full frame still has every column.
  Table all = df.collect();
  EXPECT_EQ(all.schema().to_string(), "id: int64, x: int64, unused: int64");
  EXPECT_EQ(all.num_rows(), 96);
}

TEST(ColumnPruning, RowCountSurvivesWhenNoColumnIsRead) {
  Table t = range(1000, 4)
                .with_column("x", col("id") + lit(int64_t{1}))
                .agg({lit(int64_t{1}).count().alias("rows")})
                .collect();
  EXPECT_EQ(t.column("rows").value<int64_t>(0), 1000);
}
