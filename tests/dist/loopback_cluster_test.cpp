// Whole queries on three ranks inside the test process (a LoopbackNetwork): the runner's
// protocol code, the same that runs under mpirun, places actors on other ranks, spreads the
// first pipeline's partitions, serves pool calls and merges partial states, and the results
// equal the local executor's.
#include "dist/loopback_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "ember/udf.h"
#include "exec/executor.h"
#include "exec/sources/range_source.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"

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

TEST(LoopbackCluster, AGroupByMergesEachRanksPartialStatesIntoTheLocalResult) {
  test::LoopbackCluster cluster(3);
  NodePtr keyed =
      make_project(range_source(30000, 9), {tree(col("id")), tree((col("id") % 101).alias("k"))});
  NodePtr grouped = make_group_by(keyed, {tree(col("k"))},
                                  {tree(col("id").sum().alias("s")), tree(col("id").count())});
  NodePtr root = make_sort(grouped, {SortSpec{tree(col("k"))}});
  const QueryResult local = execute_plan(root, two_threads(), QueryOutput{}, nullptr);
  const QueryResult spread = execute_plan(root, two_threads(), QueryOutput{}, cluster.runtime());
  EXPECT_EQ(local.table.num_rows(), 101);
  EXPECT_EQ(rows_of(spread.table), rows_of(local.table));
  ASSERT_EQ(spread.stats.ranks.size(), 3u);
  for (const RankStats& r : spread.stats.ranks) EXPECT_GT(r.partitions, 0) << "rank " << r.rank;
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
