// Resumable writes through the public API: a write that failed part-way keeps its finished
// pieces, and a rerun of the same query computes only the rest and commits the whole set.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

#include "ember/ember.h"

using namespace ember;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

/// Rows the Triple UDF has been called on, and the count past which a call throws (-1: never),
/// standing in for a crash part-way through a job.
std::atomic<int64_t> rows_seen{0};
std::atomic<int64_t> fail_past{-1};
/// While set, calls of Triple wait (another job's attempt happens meanwhile).
std::atomic<bool> hold{false};
std::atomic<bool> holding{false};

/// 3 x its argument.
class Triple {
 public:
  explicit Triple(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const int64_t seen = rows_seen.fetch_add(in.num_rows()) + in.num_rows();
    if (fail_past >= 0 && seen > fail_past) throw std::runtime_error("killed part-way");
    while (hold) {
      holding = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) b.append(3 * in.column(0).value<int64_t>(i));
    return b.finish();
  }
};

}  // namespace

EMBER_REGISTER_UDF(Triple);

namespace {

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::path(testing::TempDir()) / "ember-resume-XXXXXX").string();
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

RunOptions resumable(int64_t checkpoint_rows = 0) {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.threads = 2;
  o.resumable = true;
  o.checkpoint_rows = checkpoint_rows;
  return o;
}

Udf triple(const std::string& tag = "a") {
  return Udf::cls<Triple>("triple").returns(int64()).batch_size(30).init_args({{"tag", tag}});
}

/// `rows` ids over `files` Parquet files (one partition each) in `dir`.
std::string parquet_input(const fs::path& dir, int64_t rows, int files) {
  range(rows, files).write_parquet(dir.string());
  return (dir / "*.parquet").string();
}

/// The write a test interrupts: ids that are not multiples of 3, and 3 x each.
DataFrame job(const std::string& input, const Udf& udf = triple()) {
  return read_parquet(input).where(col("id") % 3 != 0).with_column("t", udf(col("id")));
}

/// Every (id, t) of the written set, in file order.
std::vector<std::pair<int64_t, int64_t>> rows_of(const Table& t) {
  std::vector<std::pair<int64_t, int64_t>> rows;
  const Column id = t.column("id"), tr = t.column("t");
  for (int64_t i = 0; i < t.num_rows(); ++i)
    rows.emplace_back(id.value<int64_t>(i), tr.value<int64_t>(i));
  return rows;
}

/// What the job writes, by a reference evaluator: ids below `rows`, in order.
std::vector<std::pair<int64_t, int64_t>> expected(int64_t rows) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t id = 0; id < rows; ++id)
    if (id % 3 != 0) out.emplace_back(id, 3 * id);
  return out;
}

/// Runs `write` with Triple failing past `fail` rows; expects it to fail.
void run_failing(int64_t fail, const std::function<void()>& write) {
  rows_seen = 0;
  fail_past = fail;
  EXPECT_THROW(write(), UdfError);
  fail_past = -1;
  rows_seen = 0;
}

TEST(ResumableWrite, KeepsFinishedPartitionsAndComputesOnlyTheRest) {
  Scratch s;
  const std::string input = parquet_input(s / "in", 4000, 8);
  const std::string out = (s / "out").string();
  run_failing(2000, [&] { job(input).write_parquet(out, {}, resumable()); });
  EXPECT_FALSE(fs::exists(out));  // nothing committed
  EXPECT_TRUE(fs::exists(s / ".out.ember-resume.journal"));

  // The journal is per piece of output, not per thread: a rerun with fewer threads resumes it.
  RunOptions fewer = resumable();
  fewer.threads = 1;
  fewer.progress = true;
  testing::internal::CaptureStderr();
  QueryResult r = job(input).write_parquet(out, {}, fewer);
  const std::string bar = testing::internal::GetCapturedStderr();
  EXPECT_THAT(
      bar, HasSubstr("(resumed: " + std::to_string(r.stats.resumed_partitions) + " partitions, "));
  EXPECT_GE(r.stats.resumed_partitions, 1);
  EXPECT_LT(r.stats.resumed_partitions, 8);
  // Each partition holds 500 ids, 333 or 334 of them written: the kept ones are whole.
  EXPECT_GE(r.stats.resumed_rows, 333 * r.stats.resumed_partitions);
  EXPECT_LE(r.stats.resumed_rows, 334 * r.stats.resumed_partitions);
  // Nothing kept is computed again, and nothing is computed twice.
  EXPECT_EQ(rows_seen.load() + r.stats.resumed_rows, static_cast<int64_t>(expected(4000).size()));
  EXPECT_EQ(r.stats.rows_out, static_cast<int64_t>(expected(4000).size()));
  EXPECT_EQ(rows_of(read_parquet(out + "/*.parquet").collect()), expected(4000));
  EXPECT_FALSE(fs::exists(s / ".out.ember-resume.journal"));
  EXPECT_FALSE(fs::exists(s / ".out.ember-resume"));
}

TEST(ResumableWrite, ResumesInsideAPartitionAfterItsLastCheckpoint) {
  Scratch s;
  const std::string input = parquet_input(s / "in", 1000, 1);
  const std::string out = (s / "out").string();
  // Past 450 UDF rows the partition reads ids 600..699: its checkpoint after id 599 is made.
  run_failing(450, [&] { job(input).write_csv(out, {}, resumable(100)); });
  QueryResult r = job(input).write_csv(out, {}, resumable(100));
  EXPECT_EQ(r.stats.resumed_partitions, 0);
  EXPECT_EQ(r.stats.resumed_rows, static_cast<int64_t>(expected(600).size()));
  EXPECT_EQ(rows_seen.load(), static_cast<int64_t>(expected(1000).size() - expected(600).size()));
  EXPECT_EQ(rows_of(read_csv(out + "/*.csv").collect()), expected(1000));
  // One piece per checkpoint, named in row order.
  for (int piece = 0; piece < 10; ++piece)
    EXPECT_TRUE(fs::exists(fs::path(out) / ("part-00000-0000" + std::to_string(piece) + ".csv")));
}

TEST(ResumableWrite, EveryFormatResumes) {
  Scratch s;
  const std::string input = parquet_input(s / "in", 1200, 2);
  const std::vector<std::pair<std::string, std::function<QueryResult(const std::string&)>>>
      formats = {
          {"csv", [&](const std::string& o) { return job(input).write_csv(o, {}, resumable(90)); }},
          {"jsonl",
           [&](const std::string& o) { return job(input).write_jsonl(o, {}, resumable(90)); }},
          {"arrow",
           [&](const std::string& o) { return job(input).write_arrow(o, {}, resumable(90)); }},
          {"parquet",
           [&](const std::string& o) { return job(input).write_parquet(o, {}, resumable(90)); }}};
  for (const auto& [ext, write] : formats) {
    SCOPED_TRACE(ext);
    const std::string out = (s / ("out-" + ext)).string();
    run_failing(500, [&] { write(out); });
    QueryResult r = write(out);
    EXPECT_GT(r.stats.resumed_rows, 0);
    const std::string glob = out + "/*." + ext;
    const Table t = ext == "csv"     ? read_csv(glob).collect()
                    : ext == "jsonl" ? read_jsonl(glob).collect()
                    : ext == "arrow" ? read_arrow(glob).collect()
                                     : read_parquet(glob).collect();
    EXPECT_EQ(rows_of(t), expected(1200));
  }
}

TEST(ResumableWrite, AnotherQueryIsRefusedNamingWhatDiffers) {
  Scratch s;
  const std::string input = parquet_input(s / "in", 2000, 4);
  const std::string out = (s / "out").string();
  run_failing(700, [&] { job(input).write_parquet(out, {}, resumable()); });

  auto refusal = [&](const DataFrame& df, const RunOptions& o = resumable()) {
    try {
      df.write_parquet(out, {}, o);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(refusal(job(input).where(col("id") > 5)), HasSubstr("optimized plan"));
  EXPECT_THAT(refusal(job(input, triple("b"))), HasSubstr("UDF triple"));
  EXPECT_THAT(refusal(job(input), resumable(50)), HasSubstr("checkpoint_rows"));
  // An input file that changed since.
  const std::string first = (s / "in" / "part-00000.parquet").string();
  range(10).write_parquet((s / "other").string());
  fs::copy_file(s / "other" / "part-00000.parquet", first, fs::copy_options::overwrite_existing);
  const std::string msg = refusal(job(input));
  EXPECT_THAT(msg, HasSubstr("input file"));
  EXPECT_THAT(msg, HasSubstr("part-00000.parquet"));
  EXPECT_THAT(msg, HasSubstr("discard_unfinished"));

  RunOptions discard = resumable();
  discard.discard_unfinished = true;
  QueryResult r = job(input).write_parquet(out, {}, discard);
  EXPECT_EQ(r.stats.resumed_partitions, 0);
  EXPECT_EQ(r.stats.resumed_rows, 0);
  EXPECT_EQ(r.stats.rows_out, read_parquet(out + "/*.parquet").collect().num_rows());
}

TEST(ResumableWrite, ASecondJobIntoTheSameTargetFailsAtOnce) {
  Scratch s;
  const std::string input = parquet_input(s / "in", 400, 2);
  const std::string out = (s / "out").string();
  hold = true;
  holding = false;
  std::thread first([&] { job(input).write_parquet(out, {}, resumable()); });
  while (!holding) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto start = std::chrono::steady_clock::now();
  try {
    job(input).write_parquet(out, {}, resumable());
    ADD_FAILURE() << "a second job ran into the same target";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("another running resumable job"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  hold = false;
  first.join();
  EXPECT_EQ(rows_of(read_parquet(out + "/*.parquet").collect()), expected(400));
}

TEST(ResumableWrite, OptionsThatCannotApplyAreRefusedAndExplainSaysWhatResumes) {
  EXPECT_THROW(range(10).collect(resumable()), InvalidArgument);
  RunOptions negative = resumable();
  negative.checkpoint_rows = -1;
  Scratch s;
  EXPECT_THROW(range(10).write_csv((s / "o").string(), {}, negative), InvalidArgument);

  const std::string map =
      range(100, 2).with_column("t", triple()(col("id"))).explain(resumable(50));
  EXPECT_THAT(map, HasSubstr("== Resumable write =="));
  EXPECT_THAT(map, HasSubstr("every checkpoint (each 50 input rows)"));
  EXPECT_THAT(map, HasSubstr("UDF triple is assumed deterministic"));
  const std::string grouped = range(100, 2)
                                  .group_by(std::vector<Expr>{col("id") % 2})
                                  .agg({col("id").sum()})
                                  .explain(resumable());
  EXPECT_THAT(grouped, HasSubstr("the breaker's result (the input of pipeline 2) is saved"));
  EXPECT_THAT(range(10).explain(), ::testing::Not(HasSubstr("Resumable")));
}

TEST(ResumableWrite, AQueryWithABreakerCommitsWholeWithoutItsSavedResult) {
  Scratch s;
  const std::string out = (s / "out").string();
  QueryResult r = range(1000, 4)
                      .group_by(std::vector<Expr>{(col("id") % 7).alias("k")})
                      .agg({col("id").sum().alias("s")})
                      .write_csv(out, {}, resumable());
  EXPECT_EQ(r.stats.resumed_partitions, 0);
  EXPECT_EQ(read_csv(out + "/*.csv").collect().num_rows(), 7);
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_TRUE(e.path().extension() == ".csv" || e.path().filename() == "_SUCCESS") << e.path();
}

}  // namespace
