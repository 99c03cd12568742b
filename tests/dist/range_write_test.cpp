// A write after an exchanged group-by, spread by key range over three ranks inside the test
// process: rank r writes key range r as part r, and the parts, read in order, hold what a local
// write holds, in the same order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dist/loopback_cluster.h"
#include "exec/executor.h"
#include "exec/explain.h"
#include "exec/sources/range_source.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"
#include "plan/nodes/sort_node.h"

namespace ember::dist {
namespace {

namespace fs = std::filesystem;

ExprPtr tree(const Expr& e) { return detail::ExprAccess::node(e); }

RunOptions two_threads() {
  RunOptions o;
  o.threads = 2;
  o.resources = Resources{2, 0, int64_t{1} << 30};
  return o;
}

/// ids 0..rows-1 in `parts` partitions, and k = id % keys.
NodePtr keyed(int64_t rows, int parts, int64_t keys) {
  return make_project(make_source(std::make_shared<RangeSource>(rows, parts)),
                      {tree(col("id")), tree((col("id") % lit(keys)).alias("k"))});
}

/// A fresh directory for the test's outputs, removed at its end.
struct Scratch {
  fs::path dir =
      fs::temp_directory_path() / ("ember-range-write-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

/// The part files of a CSV output, in name order.
std::vector<fs::path> parts_of(const fs::path& dir) {
  std::vector<fs::path> parts;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".csv") parts.push_back(e.path());
  std::sort(parts.begin(), parts.end());
  return parts;
}

/// Every data line of a CSV output (each part's header dropped), parts in name order.
std::vector<std::string> lines_of(const fs::path& dir) {
  std::vector<std::string> lines;
  for (const fs::path& part : parts_of(dir)) {
    std::ifstream in(part);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (!std::exchange(header, false)) lines.push_back(line);
    }
  }
  return lines;
}

QueryOutput csv_to(const fs::path& dir) {
  QueryOutput out;
  out.kind = QueryOutput::Kind::Csv;
  out.dir = dir.string();
  return out;
}

/// Writes `root` locally and on `cluster` (3 ranks); the same lines in the same order, the
/// cluster's as one part per rank. Returns the cluster's result.
QueryResult same_write_as_local(test::LoopbackCluster& cluster, const NodePtr& root,
                                const Scratch& scratch) {
  const QueryResult local =
      execute_plan(root, two_threads(), csv_to(scratch.dir / "local"), nullptr);
  QueryResult spread =
      execute_plan(root, two_threads(), csv_to(scratch.dir / "cluster"), cluster.runtime());
  const std::vector<std::string> want = lines_of(scratch.dir / "local");
  EXPECT_EQ(lines_of(scratch.dir / "cluster"), want);
  EXPECT_EQ(parts_of(scratch.dir / "cluster").size(), 3u) << "one part per rank";
  EXPECT_EQ(spread.stats.rows_out, local.stats.rows_out);
  EXPECT_EQ(spread.stats.rows_out, static_cast<int64_t>(want.size()));
  return spread;
}

TEST(RangeWrite, AGroupByIsWrittenByKeyRangeOnEveryRankAsALocalWriteIs) {
  test::LoopbackCluster cluster(3);
  Scratch scratch;
  // The groups, then a filter and a projection: the pipeline each rank runs over its range.
  NodePtr grouped = make_group_by(keyed(30000, 9, 1001), {tree(col("k"))},
                                  {tree(col("id").sum().alias("s")), tree(col("id").count())});
  NodePtr root = make_project(make_filter(grouped, tree(col("k") % lit(10) != lit(3))),
                              {tree(col("k")), tree((col("s") * lit(2)).alias("twice"))});
  const QueryResult r = same_write_as_local(cluster, root, scratch);
  EXPECT_EQ(r.stats.rows_out, 901);  // 1001 keys less the 100 with k % 10 == 3
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  int64_t out = 0, in = 0;
  for (const RankStats& rank : r.stats.ranks) {
    // Each rank wrote its range: about a third of the bytes.
    EXPECT_GT(rank.bytes_written, 0) << "rank " << rank.rank;
    EXPECT_GT(rank.rows_shuffled_in, 0) << "rank " << rank.rank;
    out += rank.rows_shuffled_out;
    in += rank.rows_shuffled_in;
  }
  EXPECT_EQ(out, in);
  // The ranges are balanced: rank 0's splitters come from its share, a hash sample of the keys.
  const auto parts = parts_of(scratch.dir / "cluster");
  for (const fs::path& part : parts)
    EXPECT_GT(fs::file_size(part), fs::file_size(parts[0]) / 3) << part;
}

TEST(RangeWrite, ADistinctWithFewerKeysThanRanksAndAnEmptyResultToo) {
  test::LoopbackCluster cluster(3);
  Scratch scratch;
  // Two keys on three ranks: some ranges hold nothing, and their parts are empty.
  NodePtr two = make_distinct(make_project(keyed(6000, 6, 2), {tree(col("k"))}), {"k"});
  same_write_as_local(cluster, two, scratch);
  fs::remove_all(scratch.dir / "local");
  fs::remove_all(scratch.dir / "cluster");
  // No row reaches the group-by.
  NodePtr none = make_group_by(make_filter(keyed(6000, 6, 50), tree(col("id") < lit(int64_t{0}))),
                               {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  const QueryResult r = same_write_as_local(cluster, none, scratch);
  EXPECT_EQ(r.stats.rows_out, 0);
}

TEST(RangeWrite, ARankThatRanNoPartitionStillWritesItsRange) {
  test::LoopbackCluster cluster(3);
  Scratch scratch;
  // Two partitions on three ranks: rank 2 runs none, but merges its share of the groups and
  // writes its range of them.
  NodePtr grouped =
      make_group_by(keyed(4000, 2, 300), {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  const QueryResult r = same_write_as_local(cluster, grouped, scratch);
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  EXPECT_EQ(r.stats.ranks[2].partitions, 0);
  EXPECT_GT(r.stats.ranks[2].bytes_written, 0);
}

TEST(RangeWrite, AFailureOnAnyRankLeavesNoFilesAndTheNextWriteRuns) {
  test::LoopbackCluster cluster(3);
  Scratch scratch;
  // One group's sum overflows int64 once two partitions' states of it merge (each partition
  // holds one 2^62 of key 7): the rank that merges that key fails, in the exchange, before any
  // range is written, whichever rank it is.
  const Expr big = when(col("id") % lit(int64_t{2000}) == lit(int64_t{7}), lit(int64_t{1} << 62),
                        lit(int64_t{1}));
  NodePtr chain = make_project(keyed(12000, 6, 100), {tree(col("k")), tree(big.alias("b"))});
  NodePtr grouped = make_group_by(chain, {tree(col("k"))}, {tree(col("b").sum().alias("s"))});
  EXPECT_THROW(execute_plan(grouped, two_threads(), csv_to(scratch.dir / "out"), cluster.runtime()),
               InvalidArgument);
  EXPECT_FALSE(fs::exists(scratch.dir / "out"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(scratch.dir)) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
  // Nothing of it waits on any rank: the next write by range runs.
  NodePtr again =
      make_group_by(keyed(3000, 6, 40), {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  same_write_as_local(cluster, again, scratch);
}

TEST(RangeWrite, ASortIsWrittenByKeyRangeWithItsTiesInInputOrder) {
  test::LoopbackCluster cluster(3);
  Scratch scratch;
  // Two keys, one descending with nulls first; 17 x 4 key pairs over 24,000 rows: long runs
  // of ties, which must keep the input order (the id column tells) across the ranks' ranges.
  const Expr null_key = lit(std::string("none")).cast(int64());
  NodePtr rows = make_project(make_source(std::make_shared<RangeSource>(24000, 12)),
                              {tree(col("id")), tree((col("id") % lit(int64_t{17})).alias("a")),
                               tree(when(col("id") % lit(int64_t{5}) == lit(int64_t{0}), null_key,
                                         col("id") % lit(int64_t{3}))
                                        .alias("b"))});
  NodePtr sorted =
      make_sort(rows, {SortSpec{tree(col("a"))}, SortSpec{tree(col("b")), true, true}});
  NodePtr root =
      make_project(make_filter(sorted, tree(col("id") % lit(int64_t{7}) != lit(int64_t{0}))),
                   {tree(col("a")), tree(col("b")), tree(col("id"))});
  const QueryResult r = same_write_as_local(cluster, root, scratch);
  ASSERT_EQ(r.stats.ranks.size(), 3u);
  for (const RankStats& rank : r.stats.ranks) {
    EXPECT_GT(rank.partitions, 0) << "rank " << rank.rank;
    EXPECT_GT(rank.bytes_written, 0) << "rank " << rank.rank;
  }
  // A sort by an expression (not a column) is written by rank 0, as before.
  NodePtr by_expr = make_sort(rows, {SortSpec{tree(col("id") % lit(int64_t{100}))}});
  const std::string text = explain_plan(by_expr, two_threads(), cluster.runtime());
  EXPECT_EQ(text.find("spread by key range"), std::string::npos) << text;
  const std::string ranged = explain_plan(sorted, two_threads(), cluster.runtime());
  EXPECT_NE(ranged.find("each rank keeps its partitions sorted"), std::string::npos) << ranged;
}

TEST(RangeWrite, ExplainSaysTheWriteIsSpreadByKeyRange) {
  test::LoopbackCluster cluster(3);
  NodePtr grouped =
      make_group_by(keyed(3000, 6, 40), {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  const std::string text = explain_plan(grouped, two_threads(), cluster.runtime());
  EXPECT_NE(text.find("a write after its breaker (write_*) is spread by key range"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rank r writing key range r as part r (write_*)"), std::string::npos) << text;
  // A sort after the group-by: a second breaker, and its pipeline runs on rank 0.
  NodePtr sorted = make_sort(grouped, {SortSpec{tree(col("s"))}});
  const std::string after = explain_plan(sorted, two_threads(), cluster.runtime());
  EXPECT_EQ(after.find("spread by key range"), std::string::npos) << after;
}

}  // namespace
}  // namespace ember::dist
