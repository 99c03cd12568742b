// Whole queries on three ranks inside the test process (a LoopbackNetwork): the runner's
// protocol code, the same that runs under mpirun, places actors on other ranks, spreads the
// first pipeline's partitions, serves pool calls and merges partial states, and the results
// equal the local executor's.
#include "dist/loopback_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "ember/udf.h"
#include "exec/executor.h"
#include "exec/sources/range_source.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"
#include "plan/nodes/join_node.h"

namespace ember::dist {
namespace {

ExprPtr tree(const Expr& e) { return detail::ExprAccess::node(e); }

std::atomic<int64_t> constructed{0};

/// id * 10, and how many instances were ever made.
struct TimesTen {
  explicit TimesTen(const InitArgs&) { ++constructed; }
  Column operator()(const Batch& in) const {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) * 10);
    return Column::from(std::move(out));
  }
};
EMBER_REGISTER_UDF(TimesTen);

struct Thrower {
  explicit Thrower(const InitArgs&) {}
  Column operator()(const Batch&) const { throw std::runtime_error("no luck"); }
};
EMBER_REGISTER_UDF(Thrower);

/// id, but fails on the batch holding id 9000 (the 10th partition of 12 of 12000 rows).
struct ThrowsAt {
  explicit ThrowsAt(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    for (int64_t i = 0; i < in.num_rows(); ++i)
      if (in.column(0).value<int64_t>(i) == 9000) throw std::runtime_error("row 9000");
    return in.column(0);
  }
};
EMBER_REGISTER_UDF(ThrowsAt);

/// id, after 300 ms for a batch of the first partition of 3 of 600,000 rows (ids below 200,000):
/// rank 0's partition, so that other ranks run theirs meanwhile.
struct SlowStart {
  explicit SlowStart(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    if (in.num_rows() > 0 && in.column(0).value<int64_t>(0) < 200000)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return in.column(0);
  }
};
EMBER_REGISTER_UDF(SlowStart);

NodePtr range_source(int64_t n, int parts) {
  return make_source(std::make_shared<RangeSource>(n, parts));
}

/// Every row of `t` (int64 columns) as text, in order.
std::vector<std::string> rows_of(const Table& t) {
  std::vector<std::string> out;
  for (const Batch& b : t.batches())
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      std::string row;
      for (int c = 0; c < b.num_columns(); ++c)
        row += std::to_string(b.column(c).value<int64_t>(i)) + "|";
      out.push_back(row);
    }
  return out;
}

RunOptions two_threads() {
  RunOptions o;
  o.threads = 2;
  o.resources = Resources{2, 0, int64_t{1} << 30};
  return o;
}

TEST(LoopbackCluster, AUdfQuerySpreadsOverThreeRanksAndEqualsTheLocalRun) {
  test::LoopbackCluster cluster(3);
  // Six actors fit one rank's 2 CPUs too, for the local run to compare with.
  const Udf udf = Udf::cls<TimesTen>("times_ten").returns(int64()).concurrency(6).num_cpus(0.25);
  NodePtr root =
      make_project(range_source(20000, 12), {tree(col("id")), tree(udf(col("id")).alias("y"))});
  const QueryResult local = execute_plan(root, two_threads(), QueryOutput{}, nullptr);
  constructed = 0;
  const QueryResult spread = execute_plan(root, two_threads(), QueryOutput{}, cluster.runtime());
  EXPECT_EQ(rows_of(spread.table), rows_of(local.table));
  ASSERT_EQ(spread.stats.ranks.size(), 3u);
  int64_t partitions = 0;
  for (const RankStats& r : spread.stats.ranks) {
    EXPECT_GT(r.partitions, 0) << "rank " << r.rank << " ran no partition";
    partitions += r.partitions;
  }
  EXPECT_EQ(partitions, 12);
  // Six actors over three ranks, each constructed once, whichever rank's batches it served.
  EXPECT_EQ(constructed.load(), 6);
  ASSERT_EQ(spread.stats.udfs.size(), 1u);
  EXPECT_EQ(spread.stats.udfs[0].inits, 6);
  EXPECT_EQ(spread.stats.udfs[0].rows, 20000);
}

/// Runs `root` locally and on `cluster`; the same rows in the same order.
QueryResult same_as_local(test::LoopbackCluster& cluster, const NodePtr& root,
                          RunOptions options = two_threads()) {
  const QueryResult local = execute_plan(root, options, QueryOutput{}, nullptr);
  QueryResult spread = execute_plan(root, options, QueryOutput{}, cluster.runtime());
  // Every value as printed (float sums to the last digit), every row, in order; a mismatch
  // shows its first differing line (a diff of the whole tables would not fit in memory).
  const std::string got = spread.table.to_string(1 << 30);
  const std::string want = local.table.to_string(1 << 30);
  if (got != want) {
    size_t at = 0;
    while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
    const size_t line = got.rfind('\n', at) == std::string::npos ? 0 : got.rfind('\n', at) + 1;
    ADD_FAILURE() << "the cluster's rows differ from the local run's at line "
                  << std::count(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(line), '\n')
                  << ":\n  cluster: " << got.substr(line, got.find('\n', line) - line)
                  << "\n  local:   " << want.substr(line, want.find('\n', line) - line) << "\n  ("
                  << spread.table.num_rows() << " rows against " << local.table.num_rows() << ")";
  }
  return spread;
}

/// Every rank sent and received groups in the exchange, and what went out came in.
void expect_exchanged(const QueryResult& r) {
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  int64_t out = 0, in = 0;
  for (const RankStats& rank : r.stats.ranks) {
    EXPECT_GT(rank.partitions, 0) << "rank " << rank.rank;
    EXPECT_GT(rank.rows_shuffled_out, 0) << "rank " << rank.rank;
    EXPECT_GT(rank.rows_shuffled_in, 0) << "rank " << rank.rank;
    out += rank.rows_shuffled_out;
    in += rank.rows_shuffled_in;
  }
  EXPECT_EQ(out, in);
}

NodePtr keyed(int64_t rows, int parts, int64_t keys) {
  return make_project(range_source(rows, parts),
                      {tree(col("id")), tree((col("id") % lit(keys)).alias("k"))});
}

TEST(LoopbackCluster, AGroupByExchangesItsStatesByKeyAndEqualsTheLocalResult) {
  test::LoopbackCluster cluster(3);
  NodePtr grouped = make_group_by(keyed(30000, 9, 1001), {tree(col("k"))},
                                  {tree(col("id").sum().alias("s")), tree(col("id").count())});
  const QueryResult r = same_as_local(cluster, grouped);
  EXPECT_EQ(r.table.num_rows(), 1001);
  expect_exchanged(r);
}

TEST(LoopbackCluster, ARankWithoutPartitionsStillMergesItsShareOfTheGroups) {
  test::LoopbackCluster cluster(3);
  // Two partitions on three ranks: rank 2 runs none, but owns a share of the keys.
  NodePtr grouped =
      make_group_by(keyed(4000, 2, 300), {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  const QueryResult r = same_as_local(cluster, grouped);
  EXPECT_EQ(r.table.num_rows(), 300);
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  EXPECT_EQ(r.stats.ranks[2].partitions, 0);
  EXPECT_GT(r.stats.ranks[2].rows_shuffled_in, 0);
}

TEST(LoopbackCluster, NullKeysAndASkewedKeyGoToOneRankEach) {
  test::LoopbackCluster cluster(3);
  // Every fifth row has a null key, the other even ids key 0 (skew), the odd ones id % 50.
  const Expr null_key = lit(std::string("none")).cast(int64());
  const Expr k = when(col("id") % 5 == lit(0), null_key,
                      when(col("id") % 2 == lit(0), lit(int64_t{0}), col("id") % 50));
  NodePtr chain = make_project(range_source(24000, 8), {tree(col("id")), tree(k.alias("k"))});
  NodePtr grouped = make_group_by(chain, {tree(col("k"))},
                                  {tree(col("id").sum().alias("s")), tree(col("id").count())});
  const QueryResult r = same_as_local(cluster, grouped);
  EXPECT_EQ(r.table.num_rows(), 22);  // null, 0, and the 20 odd keys below 50 not 5k
  expect_exchanged(r);
}

TEST(LoopbackCluster, OrderSensitiveAggregatesSeeTheInputOrderAfterTheExchange) {
  test::LoopbackCluster cluster(3);
  // first() and min/max of a shifted key: what a partition-order merge gives, on every rank.
  NodePtr grouped =
      make_group_by(keyed(20000, 10, 97), {tree(col("k"))},
                    {tree(col("id").first().alias("f")), tree(col("id").min().alias("lo")),
                     tree(col("id").max().alias("hi"))});
  expect_exchanged(same_as_local(cluster, grouped));
}

TEST(LoopbackCluster, ADistinctAndAGroupByPastTheMemoryBudgetExchangeToo) {
  test::LoopbackCluster cluster(3);
  NodePtr distinct = make_distinct(make_project(keyed(20000, 8, 5000), {tree(col("k"))}), {"k"});
  expect_exchanged(same_as_local(cluster, make_sort(distinct, {SortSpec{tree(col("k"))}})));
  // A budget far below the groups: partitions spill where they run, and their shares carry
  // what they spilled.
  RunOptions tight = two_threads();
  tight.memory_budget_bytes = 64 << 10;
  // 2,000 keys, 5 rows of each per partition: a key's rows lie on both sides of the cut, and
  // the float sums tell whether the spilled rows were merged where a local run merges them.
  NodePtr floats = make_project(
      keyed(60000, 6, 2000),
      {tree(col("k")), tree(col("id")), tree((col("id").cast(float64()) / lit(7.0)).alias("f"))});
  NodePtr grouped =
      make_group_by(floats, {tree(col("k"))},
                    {tree(col("id").sum().alias("s")), tree(col("f").sum().alias("fs")),
                     tree(col("id").first().alias("first"))});
  const QueryResult r = same_as_local(cluster, grouped, tight);
  EXPECT_EQ(r.table.num_rows(), 2000);
  expect_exchanged(r);
}

/// The left side: ids 0..rows-1 in `parts` partitions, key id % 1000 (0..999), and a value.
/// The right side: keys 500..1499 in 3 partitions, each twice (duplicate matches), and a value:
/// half the left keys match, and half the right keys match nothing.
NodePtr join_of(JoinType type, int64_t rows, int parts) {
  NodePtr left = make_project(range_source(rows, parts),
                              {tree((col("id") % 1000).alias("k")), tree(col("id").alias("l"))});
  NodePtr right = make_project(range_source(2000, 3), {tree((col("id") % 1000 + 500).alias("k")),
                                                       tree((col("id") * 3).alias("r"))});
  return make_join(left, right, {"k"}, type);
}

/// Every rank ran probe partitions.
void expect_spread(const QueryResult& r) {
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  for (const RankStats& rank : r.stats.ranks) EXPECT_GT(rank.partitions, 0) << "rank " << rank.rank;
}

TEST(LoopbackCluster, RightAndFullJoinsSpreadAndAddTheRightRowsNoRankMatched) {
  test::LoopbackCluster cluster(3);
  for (JoinType type : {JoinType::Right, JoinType::Full}) {
    SCOPED_TRACE(join_type_name(type));
    const QueryResult r = same_as_local(cluster, join_of(type, 12000, 9));
    // Matched: 6,000 left rows x 2 right rows; unmatched right: 1,000 (keys 1000..1499, twice);
    // a full join adds the 6,000 unmatched left rows.
    EXPECT_EQ(r.table.num_rows(), 12000 + 1000 + (type == JoinType::Full ? 6000 : 0));
    expect_spread(r);
  }
  // A right row that one rank's probe alone matches is matched: 9 left rows in 9 partitions,
  // keys 1000..1008, each matching 2 right rows; the other 1,982 right rows come unmatched.
  NodePtr few = make_project(range_source(9, 9),
                             {tree((col("id") + 1000).alias("k")), tree(col("id").alias("l"))});
  NodePtr right = make_project(range_source(2000, 3), {tree((col("id") % 1000 + 500).alias("k")),
                                                       tree((col("id") * 3).alias("r"))});
  const QueryResult r = same_as_local(cluster, make_join(few, right, {"k"}, JoinType::Right));
  EXPECT_EQ(r.table.num_rows(), 9 * 2 + 2000 - 9 * 2);
  expect_spread(r);
}

TEST(LoopbackCluster, WhatFollowsARightJoinRunsOnRankZeroOverEveryRanksRows) {
  test::LoopbackCluster cluster(3);
  // A filter and a group-by above the join: the pipeline after the join's tail, on rank 0.
  NodePtr joined = join_of(JoinType::Full, 9000, 6);
  NodePtr filtered = make_filter(joined, tree(col("r").is_null() || col("r") % lit(2) == lit(0)));
  NodePtr grouped = make_group_by(filtered, {tree(col("k"))},
                                  {tree(col("l").sum().alias("ls")), tree(col("r").count())});
  expect_spread(same_as_local(cluster, grouped));
  // Past a tight memory budget each rank still builds the small right side in memory (a local
  // run spills it, and its join's order is then not defined: compared sorted).
  RunOptions tight = two_threads();
  tight.memory_budget_bytes = 16 << 10;
  NodePtr sorted =
      make_sort(join_of(JoinType::Right, 9000, 6),
                {SortSpec{tree(col("k"))}, SortSpec{tree(col("l"))}, SortSpec{tree(col("r"))}});
  expect_spread(same_as_local(cluster, sorted, tight));
}

TEST(LoopbackCluster, ARightJoinFailingOnAnotherRankEndsTheQueryEverywhere) {
  test::LoopbackCluster cluster(3);
  // The UDF fails on the 10th of 12 probe partitions, whichever rank runs it.
  const Udf udf = Udf::cls<ThrowsAt>("throws_at").returns(int64()).concurrency(3).num_cpus(0.25);
  NodePtr left = make_project(range_source(12000, 12), {tree((col("id") % 1000).alias("k")),
                                                        tree(udf(col("id")).alias("l"))});
  NodePtr right = make_project(range_source(2000, 3), {tree((col("id") % 1000 + 500).alias("k")),
                                                       tree((col("id") * 3).alias("r"))});
  EXPECT_THROW(execute_plan(make_join(left, right, {"k"}, JoinType::Right), two_threads(),
                            QueryOutput{}, cluster.runtime()),
               UdfError);
  // Nothing of it is left on any rank: the next right join runs and matches as before.
  expect_spread(same_as_local(cluster, join_of(JoinType::Right, 6000, 6)));
}

/// `left` (k = id % 1000, l = id: 12 partitions of 12,000 rows) joined with `right` (k from 500
/// to 1499, twice each; r from `udf`), sorted by every column after the join.
NodePtr exchanged_join(JoinType type, const Udf& left_udf, const Udf& right_udf) {
  NodePtr left = make_project(range_source(12000, 12), {tree((col("id") % 1000).alias("k")),
                                                        tree(left_udf(col("id")).alias("l"))});
  NodePtr right = make_project(range_source(2000, 3), {tree((col("id") % 1000 + 500).alias("k")),
                                                       tree(right_udf(col("id")).alias("r"))});
  NodePtr joined = make_join(left, right, {"k"}, type);
  std::vector<SortSpec> keys;
  for (const Field& f : joined->schema.fields()) keys.push_back(SortSpec{tree(col(f.name))});
  return make_sort(joined, keys);
}

TEST(LoopbackCluster, AJoinWhoseRightSideCallsAUdfRunsAsAHashExchangeOfBothSides) {
  // Every rank cannot read a right side that calls a UDF: both sides are exchanged by key and
  // each rank joins its own buckets; the join's order is the buckets', so it is sorted after.
  test::LoopbackCluster cluster(3);
  const Udf ten = Udf::cls<TimesTen>("times_ten").returns(int64()).concurrency(3).num_cpus(0.25);
  const Udf same = Udf::cls<ThrowsAt>("same").returns(int64()).concurrency(3).num_cpus(0.25);
  for (JoinType type : {JoinType::Inner, JoinType::Left, JoinType::Right, JoinType::Full,
                        JoinType::Semi, JoinType::Anti}) {
    SCOPED_TRACE(join_type_name(type));
    const QueryResult r = same_as_local(cluster, exchanged_join(type, ten, ten));
    expect_exchanged(r);
  }
  // A UDF failing in the left side's exchange (on id 9000, whichever rank runs it) ends the
  // query on every rank; the next join by exchange runs as before.
  EXPECT_THROW(execute_plan(exchanged_join(JoinType::Inner, same, ten), two_threads(),
                            QueryOutput{}, cluster.runtime()),
               UdfError);
  expect_exchanged(same_as_local(cluster, exchanged_join(JoinType::Full, ten, ten)));
}

/// No rank but 0 sent rows back as row batches: only partial states travelled.
void expect_no_row_batches(const QueryResult& r) {
  for (const RankStats& rank : r.stats.ranks) {
    if (rank.rank > 0) {
      EXPECT_EQ(rank.peak_results_in_flight, 0) << "rank " << rank.rank;
    }
  }
}

TEST(LoopbackCluster, ASortRunsOnEveryRankAndRankZeroMergesTheSortedPartitions) {
  test::LoopbackCluster cluster(3);
  // Several keys, descending with nulls first, and ties (a key of 7 values over 30,000 rows):
  // ties keep the input order, across ranks too.
  const Expr null_key = lit(std::string("none")).cast(int64());
  NodePtr chain = make_project(
      range_source(30000, 9),
      {tree(col("id")), tree(when(col("id") % 11 == lit(0), null_key, col("id") % 7).alias("a")),
       tree((col("id") % 3).cast(float64()).alias("b"))});
  NodePtr sorted =
      make_sort(chain, {SortSpec{tree(col("a")), true, true}, SortSpec{tree(col("b"))}});
  const QueryResult r = same_as_local(cluster, sorted);
  EXPECT_EQ(r.table.num_rows(), 30000);
  expect_spread(r);
  expect_no_row_batches(r);
  // Past a small budget: a partition's first batch (64K rows, past the partition's share) spills
  // where it runs and travels sorted, read back; its other batches travel as rows, which rank 0
  // sorts in after it. The same result.
  RunOptions tight = two_threads();
  tight.memory_budget_bytes = 256 << 10;
  NodePtr big = make_sort(
      make_project(range_source(600000, 3), {tree(col("id")), tree((col("id") % 1000).alias("a"))}),
      {SortSpec{tree(col("a")), true}});
  expect_spread(same_as_local(cluster, big, tight));
}

TEST(LoopbackCluster, ALimitStopsEachPartitionOnEveryRankOnceItHasSentItsRows) {
  test::LoopbackCluster cluster(3);
  // Partition p on rank p. While rank 0's slow first batch keeps the limit from being met,
  // ranks 1 and 2 would run their 200,000 rows each through the UDF; capped at the limit, each
  // ends its partition once it has sent 10 rows (with what its UDF stage had in flight).
  const Udf udf = Udf::cls<SlowStart>("slow_start")
                      .returns(int64())
                      .batch_size(16384)
                      .concurrency(3)
                      .num_cpus(0.25);
  // (A filter on the UDF's result keeps the limit above the UDF.)
  NodePtr limited = make_limit(
      make_filter(
          make_project(range_source(600000, 3), {tree(col("id")), tree(udf(col("id")).alias("v"))}),
          tree(col("v") % lit(int64_t{2}) == lit(int64_t{0}))),
      10);
  const QueryResult r = same_as_local(cluster, limited);
  EXPECT_EQ(r.table.num_rows(), 10);
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  for (int rank : {1, 2})
    EXPECT_LT(r.stats.ranks[static_cast<size_t>(rank)].rows, 200000)
        << "rank " << rank << " read its whole partition past the limit";
}

TEST(LoopbackCluster, AGlobalAggregateIsNotExchanged) {
  test::LoopbackCluster cluster(3);
  NodePtr total = make_aggregate(range_source(9000, 9), {tree(col("id").sum().alias("s"))});
  const QueryResult r = same_as_local(cluster, total);
  ASSERT_EQ(r.table.num_rows(), 1);
  for (const RankStats& rank : r.stats.ranks) EXPECT_EQ(rank.rows_shuffled_out, 0);
}

TEST(LoopbackCluster, AQueryFailingDuringAnExchangeEndsOnEveryRank) {
  test::LoopbackCluster cluster(3);
  // The UDF fails on one partition only, after others have sent their shares.
  const Udf udf = Udf::cls<ThrowsAt>("throws_at").returns(int64()).concurrency(3).num_cpus(0.25);
  NodePtr chain = make_project(range_source(12000, 12),
                               {tree(udf(col("id")).alias("v")), tree((col("id") % 7).alias("k"))});
  NodePtr grouped = make_group_by(chain, {tree(col("k"))}, {tree(col("v").sum().alias("s"))});
  EXPECT_THROW(execute_plan(grouped, two_threads(), QueryOutput{}, cluster.runtime()), UdfError);
  // Nothing of it is left waiting on any rank: the next exchange runs.
  NodePtr again =
      make_group_by(keyed(3000, 6, 10), {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  expect_exchanged(same_as_local(cluster, again));
}

TEST(LoopbackCluster, AUdfFailingOnAnotherRanksActorFailsTheQueryWithItsError) {
  test::LoopbackCluster cluster(3);
  const Udf udf = Udf::cls<Thrower>("thrower").returns(int64()).concurrency(3).num_cpus(1);
  NodePtr root = make_project(range_source(3000, 6), {tree(udf(col("id")).alias("y"))});
  try {
    execute_plan(root, two_threads(), QueryOutput{}, cluster.runtime());
    FAIL() << "the query succeeded";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("no luck"), std::string::npos) << e.what();
  }
  // The cluster serves the next query: nothing of the failed one is left in its way.
  const Udf ok = Udf::cls<TimesTen>("times_ten").returns(int64()).concurrency(3).num_cpus(1);
  NodePtr again = make_project(range_source(3000, 6), {tree(ok(col("id")).alias("y"))});
  EXPECT_EQ(execute_plan(again, two_threads(), QueryOutput{}, cluster.runtime()).table.num_rows(),
            3000);
}

}  // namespace
}  // namespace ember::dist
