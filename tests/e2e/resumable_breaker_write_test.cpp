// Resumable writes after a breaker: the breaker's result is saved once produced, and a rerun
// after a failure in the pipeline that writes loads it, runs nothing upstream, and keeps the
// write pipeline's finished pieces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

/// Rows the upstream UDF was called on (it runs before the breaker).
std::atomic<int64_t> upstream_rows{0};
/// Rows the downstream UDF was called on, and the count past which it throws (-1: never).
std::atomic<int64_t> downstream_rows{0};
std::atomic<int64_t> downstream_fail_past{-1};

/// Its argument, counted.
class CountedIdentity {
 public:
  explicit CountedIdentity(const InitArgs&) {}
  Column operator()(const Batch& in) {
    upstream_rows += in.num_rows();
    return in.column(0);
  }
};

/// 3 x its argument; throws once more than downstream_fail_past rows were seen (a crash
/// part-way through the write pipeline).
class FailingTriple {
 public:
  explicit FailingTriple(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const int64_t seen = downstream_rows.fetch_add(in.num_rows()) + in.num_rows();
    if (downstream_fail_past >= 0 && seen > downstream_fail_past)
      throw std::runtime_error("killed part-way");
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) b.append(3 * in.column(0).value<int64_t>(i));
    return b.finish();
  }
};

}  // namespace

EMBER_REGISTER_UDF(CountedIdentity);
EMBER_REGISTER_UDF(FailingTriple);

namespace {

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::path(testing::TempDir()) / "ember-resume-breaker-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

RunOptions resumable(int64_t checkpoint_rows) {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.threads = 2;
  o.resumable = true;
  o.checkpoint_rows = checkpoint_rows;
  return o;
}

Udf upstream() { return Udf::cls<CountedIdentity>("upstream").returns(int64()).batch_size(40); }
Udf downstream() { return Udf::cls<FailingTriple>("downstream").returns(int64()).batch_size(20); }

/// ids below 1200 over 4 partitions, through the upstream UDF, summed by id % 300, tripled by
/// the downstream UDF: (k, s = 4k + 1800, t = 3s) in key order.
DataFrame grouped_job() {
  return range(1200, 4)
      .with_column("u", upstream()(col("id")))
      .group_by(std::vector<Expr>{(col("id") % 300).alias("k")})
      .agg({col("u").sum().alias("s")})
      .with_column("t", downstream()(col("s")));
}

/// ids below 600 over 3 partitions, through the upstream UDF, largest first, in 8 partitions,
/// tripled by the downstream UDF.
DataFrame sorted_job() {
  return range(600, 3)
      .with_column("u", upstream()(col("id")))
      .sort({SortKey{col("u"), true}})
      .repartition(8)
      .with_column("t", downstream()(col("u")))
      .with_column("v", col("t") + 1);
}

/// Runs `write` with the downstream UDF failing past `fail` rows; expects it to fail.
template <typename Write>
void run_failing(int64_t fail, const Write& write) {
  downstream_rows = 0;
  downstream_fail_past = fail;
  EXPECT_THROW(write(), UdfError);
  downstream_fail_past = -1;
}

std::string journal_text(const Scratch& s) {
  std::ifstream in(s / ".out.ember-resume.journal");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::vector<int64_t>> rows_of(const Table& t, const std::vector<std::string>& cols) {
  std::vector<std::vector<int64_t>> rows(static_cast<size_t>(t.num_rows()));
  for (const std::string& name : cols) {
    const Column c = t.column(name);
    for (int64_t i = 0; i < t.num_rows(); ++i)
      rows[static_cast<size_t>(i)].push_back(c.value<int64_t>(i));
  }
  return rows;
}

TEST(ResumableBreakerWrite, AGroupByResumesFromItsSavedResultWithoutRunningUpstream) {
  Scratch s;
  const std::string out = (s / "out").string();
  upstream_rows = 0;
  run_failing(150, [&] { grouped_job().write_parquet(out, {}, resumable(50)); });
  EXPECT_EQ(upstream_rows.load(), 1200);
  const std::string journal = journal_text(s);
  EXPECT_THAT(journal, HasSubstr("\nbreaker "));
  EXPECT_THAT(journal, HasSubstr("\npiece 0 "));

  upstream_rows = 0;
  downstream_rows = 0;
  QueryResult r = grouped_job().write_parquet(out, {}, resumable(50));
  EXPECT_EQ(upstream_rows.load(), 0) << "the rerun ran the pipeline before the group-by";
  ASSERT_EQ(r.stats.udfs.size(), 2u);
  EXPECT_EQ(r.stats.udfs[0].name, "upstream");
  EXPECT_EQ(r.stats.udfs[0].inits, 0);
  EXPECT_EQ(r.stats.udfs[0].rows, 0);
  EXPECT_GT(r.stats.resumed_rows, 0);
  EXPECT_EQ(r.stats.rows_out, 300);
  // Only what no checkpoint kept is computed again.
  EXPECT_EQ(downstream_rows.load(), 300 - r.stats.resumed_rows);

  std::vector<std::vector<int64_t>> want;
  for (int64_t k = 0; k < 300; ++k) want.push_back({k, 4 * k + 1800, 3 * (4 * k + 1800)});
  EXPECT_EQ(rows_of(read_parquet(out + "/*.parquet").collect(), {"k", "s", "t"}), want);
  EXPECT_FALSE(fs::exists(s / ".out.ember-resume.journal"));
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_THAT(e.path().filename().string(), ::testing::Not(HasSubstr("breaker")));
}

TEST(ResumableBreakerWrite, ASortResumesItsFinishedPartitionsFromItsSavedResult) {
  Scratch s;
  const std::string out = (s / "out").string();
  auto job = [] { return sorted_job(); };
  upstream_rows = 0;
  // At most 4 partitions of 75 rows run at once: past 590 rows some have ended.
  run_failing(590, [&] { job().write_csv(out, {}, resumable(0)); });
  EXPECT_EQ(upstream_rows.load(), 600);

  upstream_rows = 0;
  downstream_rows = 0;
  QueryResult r = job().write_csv(out, {}, resumable(0));
  EXPECT_EQ(upstream_rows.load(), 0);
  EXPECT_GT(r.stats.resumed_partitions, 0);
  EXPECT_EQ(r.stats.resumed_rows, 75 * r.stats.resumed_partitions);
  EXPECT_EQ(downstream_rows.load(), 600 - r.stats.resumed_rows);
  EXPECT_EQ(r.stats.rows_out, 600);
  std::vector<std::vector<int64_t>> want;
  for (int64_t id = 599; id >= 0; --id) want.push_back({id, 3 * id, 3 * id + 1});
  EXPECT_EQ(rows_of(read_csv(out + "/*.csv").collect(), {"u", "t", "v"}), want);
}

TEST(ResumableBreakerWrite, ARightJoinResumesFromItsSavedResult) {
  Scratch s;
  const std::string out = (s / "out").string();
  // The right join's unmatched rows are added by a breaker: the write pipeline reads its result.
  auto job = [] {
    return range(300, 3)
        .with_column("u", upstream()(col("id")))
        .join(range(400, 2).with_column("w", col("id") * 2), {"id"}, JoinType::Right)
        .with_column("t", downstream()(col("w")));
  };
  upstream_rows = 0;
  run_failing(250, [&] { job().write_parquet(out, {}, resumable(40)); });
  EXPECT_EQ(upstream_rows.load(), 300);
  EXPECT_THAT(journal_text(s), HasSubstr("\nbreaker "));
  upstream_rows = 0;
  downstream_rows = 0;
  QueryResult r = job().write_parquet(out, {}, resumable(40));
  EXPECT_EQ(upstream_rows.load(), 0);
  EXPECT_GT(r.stats.resumed_rows, 0);
  EXPECT_EQ(downstream_rows.load(), 400 - r.stats.resumed_rows);
  const Table t = read_parquet(out + "/*.parquet").collect();
  ASSERT_EQ(t.num_rows(), 400);
  std::vector<int> seen(400, 0);
  const Column id = t.column("id"), w = t.column("w"), tt = t.column("t");
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    const int64_t k = id.value<int64_t>(i);
    ASSERT_TRUE(k >= 0 && k < 400);
    ++seen[static_cast<size_t>(k)];
    EXPECT_EQ(w.value<int64_t>(i), 2 * k);
    EXPECT_EQ(tt.value<int64_t>(i), 6 * k);
  }
  EXPECT_EQ(seen, std::vector<int>(400, 1));
}

TEST(ResumableBreakerWrite, AFailureBeforeTheBreakerFinishedComputesEverythingAgain) {
  Scratch s;
  const std::string out = (s / "out").string();
  // The downstream UDF before the sort fails: no breaker result is saved.
  auto job = [] {
    return range(300, 3)
        .with_column("t", downstream()(col("id")))
        .sort({SortKey{col("t")}})
        .with_column("u", upstream()(col("t")));
  };
  run_failing(100, [&] { job().write_parquet(out, {}, resumable(20)); });
  EXPECT_THAT(journal_text(s), ::testing::Not(HasSubstr("\nbreaker ")));
  downstream_rows = 0;
  QueryResult r = job().write_parquet(out, {}, resumable(20));
  EXPECT_EQ(downstream_rows.load(), 300);
  EXPECT_EQ(r.stats.resumed_rows, 0);
  EXPECT_EQ(read_parquet(out + "/*.parquet").collect().num_rows(), 300);
}

TEST(ResumableBreakerWrite, ASavedResultIsStillAnotherQuerysWhenTheInputChanged) {
  Scratch s;
  const std::string out = (s / "out").string();
  range(400, 2).write_parquet((s / "in").string());
  auto job = [&] {
    return read_parquet((s / "in" / "*.parquet").string())
        .group_by(std::vector<Expr>{(col("id") % 50).alias("k")})
        .agg({col("id").sum().alias("s")})
        .with_column("t", downstream()(col("s")));
  };
  run_failing(25, [&] { job().write_parquet(out, {}, resumable(10)); });
  EXPECT_THAT(journal_text(s), HasSubstr("\nbreaker "));
  range(401, 2).write_parquet((s / "in").string());
  try {
    job().write_parquet(out, {}, resumable(10));
    ADD_FAILURE() << "a changed input was resumed";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("input file"));
  }
  RunOptions discard = resumable(10);
  discard.discard_unfinished = true;
  downstream_rows = 0;
  QueryResult r = job().write_parquet(out, {}, discard);
  EXPECT_EQ(r.stats.resumed_rows, 0);
  EXPECT_EQ(downstream_rows.load(), 50);
}

TEST(ResumableBreakerWrite, ExplainSaysWhichPartsResume) {
  const std::string grouped = grouped_job().explain(resumable(50));
  EXPECT_THAT(grouped, HasSubstr("== Resumable write =="));
  EXPECT_THAT(grouped, HasSubstr("the breaker's result (the input of pipeline 2) is saved"));
  EXPECT_THAT(grouped, HasSubstr("a kill before the breaker's result is saved computes "
                                 "everything again"));
  EXPECT_THAT(grouped, HasSubstr("every checkpoint (each 50 input rows)"));
  // A join after the group-by: the write pipeline probes a hash table no saved result holds.
  const std::string joined =
      grouped_job().join(range(50, 1).select({col("id").alias("k")}), {"k"}).explain(resumable(0));
  EXPECT_THAT(joined, HasSubstr("not resumable"));
}

}  // namespace
