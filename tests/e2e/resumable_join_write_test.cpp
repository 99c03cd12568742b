// Resumable writes whose pipeline probes joins: the right sides are built again by every run,
// and the probe side keeps the partitions and checkpoints earlier runs finished, except what a
// run whose build spilled wrote (its probe partitions' keyed rows come out in the spilled
// ranges joined at the end, not in their own pieces).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "exec/relational/spill_file.h"
#include "io/temp_dir.h"

using namespace ember;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

/// Rows the build side's UDF was called on.
std::atomic<int64_t> build_rows{0};
/// Rows the UDF after the probe was called on, and the count past which it throws (-1: never).
std::atomic<int64_t> probe_rows{0};
std::atomic<int64_t> probe_fail_past{-1};

/// Its argument, counted.
class CountedBuild {
 public:
  explicit CountedBuild(const InitArgs&) {}
  Column operator()(const Batch& in) {
    build_rows += in.num_rows();
    return in.column(0);
  }
};

/// 3 x its argument (null for null); throws once more than probe_fail_past rows were seen (a
/// crash part-way through the probe pipeline).
class FailingTripleAfterProbe {
 public:
  explicit FailingTripleAfterProbe(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const int64_t seen = probe_rows.fetch_add(in.num_rows()) + in.num_rows();
    if (probe_fail_past >= 0 && seen > probe_fail_past) throw std::runtime_error("killed part-way");
    ColumnBuilder b(int64(), in.num_rows());
    const Column& c = in.column(0);
    for (int64_t i = 0; i < in.num_rows(); ++i)
      c.is_null(i) ? b.append_null() : b.append(3 * c.value<int64_t>(i));
    return b.finish();
  }
};

}  // namespace

EMBER_REGISTER_UDF(CountedBuild);
EMBER_REGISTER_UDF(FailingTripleAfterProbe);

namespace {

using Scratch = testing_io::TempDir;  // the test's output and journal live here

RunOptions resumable(int64_t checkpoint_rows, int64_t memory_budget = 0) {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.threads = 2;
  o.resumable = true;
  o.checkpoint_rows = checkpoint_rows;
  o.memory_budget_bytes = memory_budget;  // 1 KiB: the build side spills
  return o;
}

/// Left: ids below 1200 over 8 partitions with k = id % 400. Right: ids below 600 over 3
/// partitions, through the counted UDF, with k = id % 300 and w = id, so that each k below
/// 300 matches two right rows (w = k and w = k + 300) and the others none. After the join,
/// t = 3w.
DataFrame joined(JoinType type) {
  Udf build = Udf::cls<CountedBuild>("build").returns(int64()).batch_size(50);
  Udf after = Udf::cls<FailingTripleAfterProbe>("after").returns(int64()).batch_size(20);
  DataFrame right = range(600, 3)
                        .with_column("w", build(col("id")))
                        .select({(col("id") % 300).alias("k"), col("w")});
  return range(1200, 8)
      .with_column("k", col("id") % 400)
      .join(right, {"k"}, type)
      .with_column("t", after(col("w")));
}

/// (id, w, t) of every row the job must write, sorted; a left join keeps unmatched ids with
/// null w and t (here -1).
std::vector<std::vector<int64_t>> expected(JoinType type) {
  std::vector<std::vector<int64_t>> rows;
  for (int64_t id = 0; id < 1200; ++id) {
    const int64_t k = id % 400;
    if (k < 300) {
      rows.push_back({id, k, 3 * k});
      rows.push_back({id, k + 300, 3 * (k + 300)});
    } else if (type == JoinType::Left) {
      rows.push_back({id, -1, -1});
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::vector<int64_t>> written(const std::string& out) {
  const Table t = read_parquet(out + "/*.parquet").collect();
  std::vector<std::vector<int64_t>> rows;
  const Column id = t.column("id"), w = t.column("w"), tt = t.column("t");
  for (int64_t i = 0; i < t.num_rows(); ++i)
    rows.push_back({id.value<int64_t>(i), w.is_null(i) ? -1 : w.value<int64_t>(i),
                    tt.is_null(i) ? -1 : tt.value<int64_t>(i)});
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Runs the job with the UDF after the probe failing past `fail` rows; expects it to fail.
void run_failing(JoinType type, int64_t fail, const RunOptions& options, const std::string& out) {
  probe_rows = 0;
  probe_fail_past = fail;
  EXPECT_THROW(joined(type).write_parquet(out, {}, options), UdfError);
  probe_fail_past = -1;
}

std::string journal_text(const Scratch& s) {
  return testing_io::read_file(s.file(".out.ember-resume.journal"));
}

int64_t total_rows(JoinType type) { return static_cast<int64_t>(expected(type).size()); }

TEST(ResumableJoinWrite, AnInnerJoinKeepsTheCheckpointsOfItsProbeSide) {
  Scratch s;
  const std::string out = s.file("out");
  run_failing(JoinType::Inner, 1000, resumable(50), out);
  EXPECT_THAT(journal_text(s), HasSubstr("\npiece "));

  build_rows = 0;
  probe_rows = 0;
  QueryResult r = joined(JoinType::Inner).write_parquet(out, {}, resumable(50));
  EXPECT_EQ(build_rows.load(), 600) << "the rerun builds the right side again";
  EXPECT_GT(r.stats.resumed_rows, 0);
  // Only what no checkpoint kept goes through the UDF after the probe again.
  EXPECT_EQ(probe_rows.load(), total_rows(JoinType::Inner) - r.stats.resumed_rows);
  EXPECT_EQ(r.stats.rows_out, total_rows(JoinType::Inner));
  EXPECT_EQ(written(out), expected(JoinType::Inner));
  EXPECT_FALSE(fs::exists(s.file(".out.ember-resume.journal")));
}

TEST(ResumableJoinWrite, ALeftJoinKeepsItsFinishedPartitions) {
  Scratch s;
  const std::string out = s.file("out");
  // At most 4 of the 8 partitions (150 left rows, at most 300 joined rows each) run at once:
  // past 1500 joined rows at least one has ended.
  run_failing(JoinType::Left, 1500, resumable(0), out);

  probe_rows = 0;
  QueryResult r = joined(JoinType::Left).write_parquet(out, {}, resumable(0));
  EXPECT_GT(r.stats.resumed_partitions, 0);
  EXPECT_GE(r.stats.resumed_rows, 150 * r.stats.resumed_partitions);
  EXPECT_LE(r.stats.resumed_rows, 300 * r.stats.resumed_partitions);
  EXPECT_EQ(probe_rows.load(), total_rows(JoinType::Left) - r.stats.resumed_rows);
  EXPECT_EQ(written(out), expected(JoinType::Left));
}

TEST(ResumableJoinWrite, ARunWhoseBuildSpilledKeepsNothingOfItsOwn) {
  Scratch s;
  const std::string out = s.file("out");
  const int64_t files = SpillFile::files_created();
  run_failing(JoinType::Inner, 1000, resumable(50, 1024), out);
  EXPECT_GT(SpillFile::files_created(), files) << "the build side did not spill";
  EXPECT_THAT(journal_text(s), ::testing::Not(HasSubstr("\npiece ")));

  probe_rows = 0;
  QueryResult r = joined(JoinType::Inner).write_parquet(out, {}, resumable(50, 1024));
  EXPECT_EQ(r.stats.resumed_rows, 0);
  EXPECT_EQ(probe_rows.load(), total_rows(JoinType::Inner));
  EXPECT_EQ(written(out), expected(JoinType::Inner));
}

TEST(ResumableJoinWrite, PiecesKeptFromARunInMemoryJoinWithARerunThatSpills) {
  Scratch s;
  const std::string out = s.file("out");
  // In memory: checkpoints are journaled.
  run_failing(JoinType::Left, 1000, resumable(50), out);
  const std::string first = journal_text(s);
  ASSERT_THAT(first, HasSubstr("\npiece "));
  // Spilled: the first run's pieces are kept, this run's are not journaled.
  run_failing(JoinType::Left, 1000, resumable(50, 1024), out);
  EXPECT_EQ(journal_text(s), first);
  // Spilled again, to the end: the kept pieces, the probe partitions' rows without a key (none
  // here) and the spilled ranges make up the output, each row once.
  probe_rows = 0;
  QueryResult r = joined(JoinType::Left).write_parquet(out, {}, resumable(50, 1024));
  EXPECT_GT(r.stats.resumed_rows, 0);
  EXPECT_EQ(probe_rows.load(), total_rows(JoinType::Left) - r.stats.resumed_rows);
  EXPECT_EQ(written(out), expected(JoinType::Left));
}

TEST(ResumableJoinWrite, ExplainSaysTheProbeSideResumes) {
  const std::string text = joined(JoinType::Inner).explain(resumable(50));
  EXPECT_THAT(text, HasSubstr("pipeline 1 (the joins' right sides): run again by every rerun"));
  EXPECT_THAT(text, HasSubstr("pipeline 2 (the probe side and the write): a rerun keeps every "
                              "finished partition and, inside unfinished ones, every checkpoint"));
  EXPECT_THAT(text, HasSubstr("UDF after is assumed deterministic"));
}

}  // namespace
