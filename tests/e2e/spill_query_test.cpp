// Group-by, sort and join past a tiny memory budget: they spill to temporary files, give the
// same result as in memory, and leave no file behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "exec/relational/spill_file.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

RunOptions options(int threads, int64_t budget) {
  RunOptions o;
  o.threads = threads;
  o.memory_budget_bytes = budget;
  return o;
}

/// k: int64 with nulls and skew; s: utf8 with nulls; v: int64 with nulls; id: row number.
Table make_table(int64_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::optional<int64_t>> k, v;
  std::vector<std::optional<std::string>> s;
  std::vector<int64_t> id;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    k.push_back(r % 13 == 0 ? std::nullopt
                            : std::optional<int64_t>(r % 3 == 0 ? 7 : (r >> 8) % 5000));
    s.push_back(r % 7 == 0 ? std::nullopt
                           : std::optional<std::string>("s" + std::to_string((r >> 20) % 6)));
    v.push_back(r % 5 == 0 ? std::nullopt : std::optional<int64_t>((r >> 32) % 1000 - 500));
    id.push_back(i);
  }
  return Table::from_columns({{"k", Column::from(k)},
                              {"s", Column::from(s)},
                              {"v", Column::from(v)},
                              {"id", Column::from(id)}});
}

/// Each row as one line, sorted: the table as a multiset of rows.
std::vector<std::string> row_multiset(const Table& t) {
  std::vector<std::string> rows(static_cast<size_t>(t.num_rows()));
  for (const Field& f : t.schema().fields()) {
    const Column c = t.column(f.name);
    for (int64_t r = 0; r < t.num_rows(); ++r)
      rows[static_cast<size_t>(r)] += to_string(c.get(r)) + "|";
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// A stateful UDF: doubles its int64 argument (nulls stay null).
struct Doubler {
  explicit Doubler(const InitArgs&) {}
  Column operator()(const Batch& in) {
    ColumnBuilder out(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (in.column(0).is_null(i))
        out.append_null();
      else
        out.append(in.column(0).value<int64_t>(i) * 2);
    }
    return out.finish();
  }
};

void expect_same(const Table& got, const Table& want) {
  ASSERT_EQ(got.schema().to_string(), want.schema().to_string());
  ASSERT_EQ(got.num_rows(), want.num_rows());
  for (const Field& f : want.schema().fields()) {
    const Column g = got.column(f.name), w = want.column(f.name);
    for (int64_t r = 0; r < want.num_rows(); ++r)
      ASSERT_EQ(g.get(r), w.get(r)) << f.name << " row " << r;
  }
}

/// Points the system temp directory at a fresh directory for the test's lifetime.
class SpillTest : public testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    old_ = std::getenv("TMPDIR") ? std::optional<std::string>(std::getenv("TMPDIR")) : std::nullopt;
    dir_ = fs::temp_directory_path() / ("ember-spill-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ::setenv("TMPDIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
    fs::remove_all(dir_);
  }
  bool dir_empty() const { return fs::is_empty(dir_); }

  fs::path dir_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_P(SpillTest, GroupByPastTheBudgetMatchesInMemory) {
  Table t = make_table(60000, 3);
  auto q = from_table(t, 6)
               .group_by({col("k"), col("s")})
               .agg({col("v").sum().alias("sum"), col("v").count().alias("n"),
                     col("v").min().alias("lo"), col("v").max().alias("hi"),
                     col("v").count_distinct().alias("dv"), col("id").first().alias("first_id")});
  Table want = q.collect(options(GetParam(), 0));
  const int64_t made = SpillFile::files_created();
  Table got = q.collect(options(GetParam(), 1024));
  EXPECT_GT(SpillFile::files_created(), made) << "the tiny budget did not spill";
  expect_same(got, want);
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

TEST_P(SpillTest, SortPastTheBudgetIsAnExternalStableSort) {
  Table t = make_table(60000, 5);
  auto q = from_table(t, 5).sort({SortKey{col("k"), true, true}, SortKey{col("s")}});
  Table want = q.collect(options(GetParam(), 0));
  const int64_t made = SpillFile::files_created();
  Table got = q.collect(options(GetParam(), 64 * 1024));
  EXPECT_GT(SpillFile::files_created(), made) << "the tiny budget did not spill";
  expect_same(got, want);  // ties too: the id column is in the same order
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

TEST_P(SpillTest, SortOfAlreadySortedRowsSpillsAndKeepsThem) {
  // Already in order: each run shares its input slice instead of a copy, and spills from it.
  Table t = make_table(40000, 9);
  auto q = from_table(t, 3).sort({SortKey{col("id")}});
  const int64_t made = SpillFile::files_created();
  Table got = q.collect(options(GetParam(), 64 * 1024));
  EXPECT_GT(SpillFile::files_created(), made);
  expect_same(got, t);
  EXPECT_TRUE(dir_empty());
}

TEST_P(SpillTest, RunsLargerThanAChunkMergeAsTheResultIsRead) {
  // Runs of several MiB: each is spilled in 1 MiB chunks and the merge reads them back a chunk
  // at a time, into a sort that feeds a filter and a projection.
  Table t = make_table(500000, 11);
  auto q = from_table(t, 2)
               .sort({SortKey{col("s"), false, true}, SortKey{col("k"), true}})
               .where(col("id") % lit(int64_t{3}) != lit(int64_t{0}))
               .with_column("v2", col("v") * lit(int64_t{2}));
  Table want = q.collect(options(GetParam(), 0));
  const int64_t made = SpillFile::files_created();
  Table got = q.collect(options(GetParam(), 6 << 20));  // about 3 MiB per partition
  EXPECT_GE(SpillFile::files_created(), made + 4) << "the budget did not spill";
  expect_same(got, want);
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

TEST_P(SpillTest, AFailingQueryRemovesItsSpillFiles) {
  Table t = make_table(30000, 7);
  // The int64 sum of the most frequent key overflows: the query fails after it spilled.
  auto q = from_table(t, 4).group_by({col("k")}).agg({(col("id") * lit(int64_t{1} << 40)).sum()});
  const int64_t made = SpillFile::files_created();
  EXPECT_THROW(q.collect(options(GetParam(), 1024)), InvalidArgument);
  EXPECT_GT(SpillFile::files_created(), made);
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

/// Budgets for the join tests: the build side spills at each; at 1 KiB each spilled partition is
/// also split into many pieces, each joined against its own pass over the probe rows.
constexpr int64_t kJoinBudgets[] = {1024, 16 * 1024};

TEST_P(SpillTest, JoinPastTheBudgetIsAGraceHashJoinOfEveryType) {
  Table left = make_table(6000, 13);
  Table right = make_table(1500, 17);  // k and s repeat: many-to-many matches, null keys
  for (JoinType type : {JoinType::Inner, JoinType::Left, JoinType::Right, JoinType::Full,
                        JoinType::Semi, JoinType::Anti}) {
    auto q = from_table(left, 5).join(from_table(right, 3), {"k", "s"}, type);
    const std::vector<std::string> want = row_multiset(q.collect(options(GetParam(), 0)));
    ASSERT_FALSE(want.empty());
    for (int64_t budget : kJoinBudgets) {
      const int64_t made = SpillFile::files_created();
      Table got = q.collect(options(GetParam(), budget));
      EXPECT_GT(SpillFile::files_created(), made) << "the build side did not spill";
      EXPECT_EQ(row_multiset(got), want)
          << "join type " << static_cast<int>(type) << ", budget " << budget;
      EXPECT_EQ(SpillFile::files_open(), 0);
      EXPECT_TRUE(dir_empty());
    }
  }
}

TEST_P(SpillTest, SpilledJoinRowsGoOnThroughWhatFollowsTheJoin) {
  // The spilled partitions enter the pipeline past the probe: the projection, filter, UDF,
  // second join (which spills too) and group-by after it see them as they see the rows joined
  // at once.
  const Udf doubler = Udf::cls<Doubler>("doubler").returns(int64()).batch_size(100);
  Table left = make_table(20000, 21);
  Table right = make_table(5000, 23);  // id 0..4999: a quarter of the left rows match
  Table dim = make_table(60, 29);      // about 9 rows per value of s
  auto q = from_table(left, 4)
               .join(from_table(right, 2), {"id"}, JoinType::Left)
               .with_column("w", col("v") * lit(int64_t{3}))
               .where(col("id") % lit(int64_t{4}) != lit(int64_t{1}))
               .with_column("d", doubler(col("v_right")))
               .join(from_table(dim, 2).select({col("s"), col("id").alias("dim_id")}), {"s"})
               .group_by({col("k"), col("s")})
               .agg({col("w").sum().alias("w"), col("dim_id").count().alias("n"),
                     col("d").max().alias("d")});
  Table want = q.collect(options(GetParam(), 0));
  ASSERT_GT(want.num_rows(), 100);
  const int64_t made = SpillFile::files_created();
  Table got = q.collect(options(GetParam(), 512));
  EXPECT_GT(SpillFile::files_created(), made) << "the build sides did not spill";
  expect_same(got, want);  // group-by output is in key order: rows compare one to one
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

TEST_P(SpillTest, AFailingQueryRemovesItsSpilledJoinFiles) {
  // The sum overflows in the group-by after the join, once the join has spilled both sides.
  Table left = make_table(6000, 31);
  Table right = make_table(1500, 37);
  auto q = from_table(left, 3)
               .join(from_table(right, 2), {"id"})
               .group_by({col("k")})
               .agg({(col("id") * lit(int64_t{1} << 52)).sum()});
  const int64_t made = SpillFile::files_created();
  EXPECT_THROW(q.collect(options(GetParam(), 1024)), InvalidArgument);
  EXPECT_GT(SpillFile::files_created(), made);
  EXPECT_EQ(SpillFile::files_open(), 0);
  EXPECT_TRUE(dir_empty());
}

INSTANTIATE_TEST_SUITE_P(Threads, SpillTest, testing::Values(1, 2, 4));

TEST(MemoryBudget, NegativeIsRefused) {
  Table t = make_table(10, 1);
  EXPECT_THROW(from_table(t).sort({SortKey{col("k")}}).collect(options(1, -1)), InvalidArgument);
}

TEST_P(SpillTest, AnOpenSpillFileHasNoNameLeft) {
  SpillFile f;
  f.write({Column::from(std::vector<int64_t>{1, 2, 3})});
  EXPECT_TRUE(dir_empty()) << "a spill file kept its name: a killed process would leave it";
  auto groups = f.read_all({int64()});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0][0].value<int64_t>(2), 3);
}

// The child of SpillKill.LeavesNothingBehind: spills until it is killed. Skipped otherwise.
TEST(SpillKillChild, SpillsUntilKilled) {
  if (!std::getenv("EMBER_SPILL_KILL_CHILD")) GTEST_SKIP() << "run by SpillKill only";
  Table t = make_table(60000, 5);
  for (int i = 0; i < 1000; ++i)
    from_table(t, 6).group_by({col("k"), col("s")}).agg({col("v").sum()}).collect(options(2, 1024));
}

TEST(SpillKill, LeavesNothingBehind) {
  const fs::path dir =
      fs::temp_directory_path() / ("ember-spill-kill-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937 rng(7);
  for (int run = 0; run < 5; ++run) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // A fresh image of this test program (a forked copy of a threaded process may not run
      // queries): only the child test, spilling into `dir`.
      ::setenv("EMBER_SPILL_KILL_CHILD", "1", 1);
      ::setenv("TMPDIR", dir.c_str(), 1);
      const std::string self = fs::read_symlink("/proc/self/exe").string();
      ::execl(self.c_str(), self.c_str(), "--gtest_filter=SpillKillChild.SpillsUntilKilled",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 1200));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child ended before it was killed: it did not spill";
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename());
    EXPECT_TRUE(left.empty()) << "run " << run << " left " << left.size() << " files, e.g. "
                              << (left.empty() ? "" : left[0]);
  }
  fs::remove_all(dir);
}
