// Stateful UDFs inside relational operators (a group-by key, an aggregate's argument, either
// side of a join, a sort key) still run in their actor pools: constructed once per actor.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Doubles its int64 argument.
struct Doubler {
  explicit Doubler(const InitArgs&) {}
  Column operator()(const Batch& in) {
    ColumnBuilder out(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) out.append(in.column(0).value<int64_t>(i) * 2);
    return out.finish();
  }
};

Udf doubler() {
  return Udf::cls<Doubler>("doubler").returns(int64()).batch_size(100).concurrency(2);
}

RunOptions two_threads() {
  RunOptions o;
  o.threads = 2;
  return o;
}

/// Every call site is a pool of its own; each constructed its UDF once per actor.
void expect_once_per_actor(const QueryResult& r, size_t pools = 1) {
  ASSERT_EQ(r.stats.udfs.size(), pools);
  for (const UdfStats& u : r.stats.udfs) {
    EXPECT_EQ(u.name, "doubler");
    EXPECT_EQ(u.inits, 2);  // concurrency 2: once per actor, not per partition
    EXPECT_GT(u.batches, 0);
  }
}

}  // namespace

TEST(RelationalUdf, InAGroupByKeyAndAnAggregateArgument) {
  QueryResult r = range(1000, 6)
                      .group_by({(doubler()(col("id")) % lit(int64_t{3})).alias("m")})
                      .agg({doubler()(col("id")).sum().alias("total")})
                      .execute(two_threads());
  expect_once_per_actor(r, 2);
  ASSERT_EQ(r.table.num_rows(), 3);
  for (int64_t m = 0; m < 3; ++m) {
    int64_t want = 0;
    for (int64_t id = 0; id < 1000; ++id)
      if ((id * 2) % 3 == m) want += id * 2;
    EXPECT_EQ(r.table.column("m").value<int64_t>(m), m);
    EXPECT_EQ(r.table.column("total").value<int64_t>(m), want);
  }
  EXPECT_NE(range(10)
                .group_by({doubler()(col("id")).alias("d")})
                .agg({col("id").count()})
                .explain()
                .find("ActorPoolProject"),
            std::string::npos);
}

TEST(RelationalUdf, OnEitherSideOfAJoinAndAsASortKey) {
  DataFrame left = range(500, 4).with_column("k", doubler()(col("id")));
  DataFrame right = range(300, 3).with_column("k", col("id") * lit(int64_t{4})).select({col("k")});
  QueryResult r = left.join(right, {"k"}).execute(two_threads());
  expect_once_per_actor(r);
  EXPECT_EQ(r.table.num_rows(), 250);  // ids 0, 2, ..., 498 double to multiples of 4

  DataFrame right_udf = range(300, 3).with_column("k", doubler()(col("id"))).select({col("k")});
  QueryResult r2 = range(500, 4)
                       .with_column("k", col("id") * lit(int64_t{4}))
                       .join(right_udf, {"k"}, JoinType::Semi)
                       .execute(two_threads());
  expect_once_per_actor(r2);
  EXPECT_EQ(r2.table.num_rows(), 150);  // 4 * id < 600

  QueryResult r3 = range(200, 3).sort({SortKey{doubler()(col("id")), true}}).execute(two_threads());
  expect_once_per_actor(r3);
  ASSERT_EQ(r3.table.num_rows(), 200);
  EXPECT_EQ(r3.table.schema().to_string(), "id: int64");
  EXPECT_EQ(r3.table.column("id").value<int64_t>(0), 199);
}

TEST(RelationalUdf, RunsOnlyOnTheRowsASemiJoinKeeps) {
  DataFrame wanted =
      range(10, 1).with_column("k", col("id") * lit(int64_t{100})).select({col("k")});
  DataFrame q = range(5000, 4)
                    .with_column("k", col("id"))
                    .with_column("score", doubler()(col("id")))
                    .join(wanted, {"k"}, JoinType::Semi)
                    .where(col("score") > lit(int64_t{100}));
  QueryResult r = q.execute(two_threads());
  expect_once_per_actor(r);
  EXPECT_EQ(r.stats.udfs[0].rows, 10);  // the pool runs after the join, on its 10 rows
  ASSERT_EQ(r.table.num_rows(), 9);
  EXPECT_EQ(r.table.column("score").value<int64_t>(0), 200);
  const std::string plan = q.explain();
  EXPECT_LT(plan.find("ActorPoolProject", plan.find("== Optimized plan ==")),
            plan.find("HashJoin semi", plan.find("== Optimized plan ==")))
      << plan;
}

TEST(RelationalUdf, RunsOnceOnEachLeftRowAnInnerOrRightJoinMatches) {
  // Keys 0, 100, ..., 900 and a second 200: one left row matches twice. 123456 matches none.
  std::vector<int64_t> keys = {0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 200, 123456};
  DataFrame wanted = from_table(Table::from_columns({{"k", Column::from(keys)}}));
  for (JoinType type : {JoinType::Inner, JoinType::Right}) {
    DataFrame q = range(5000, 4)
                      .with_column("k", col("id"))
                      .with_column("score", doubler()(col("id")))
                      .join(wanted, {"k"}, type)
                      .sort({SortKey{col("k")}});
    QueryResult r = q.execute(two_threads());
    expect_once_per_actor(r);
    // A semi join below the pool: the UDF runs on the 10 left rows with a match, once each,
    // although the join repeats one of them.
    EXPECT_EQ(r.stats.udfs[0].rows, 10);
    const int64_t rows = type == JoinType::Inner ? 11 : 12;
    ASSERT_EQ(r.table.num_rows(), rows);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t k = r.table.column("k").value<int64_t>(i);
      if (k == 123456) {
        EXPECT_TRUE(r.table.column("score").is_null(i));  // a right row with no match
        continue;
      }
      EXPECT_EQ(r.table.column("score").value<int64_t>(i), 2 * k) << "row " << i;
    }
    const std::string plan = q.explain();
    const size_t optimized = plan.find("== Optimized plan ==");
    EXPECT_LT(plan.find("ActorPoolProject", optimized), plan.find("HashJoin semi", optimized))
        << plan;
  }
}
