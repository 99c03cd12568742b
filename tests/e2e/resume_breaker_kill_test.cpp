// Resumable writes after a breaker, SIGKILLed: a job whose write pipeline (a process-actor UDF
// after a group-by or a sort) is killed once the breaker's result is saved and a piece is
// written resumes from the saved result: nothing upstream runs again, and the output equals an
// uninterrupted run's.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "support/self_child.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kRows = 4000;

/// Appends `rows` to the file `log` in one write: every call is counted, even one killed.
void log_rows(const std::string& log, int64_t rows) {
  const std::string line = std::to_string(rows) + "\n";
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
  }
}

/// Its argument; logs each call's rows (the UDF before the breaker).
class LoggedIdentity {
 public:
  explicit LoggedIdentity(const InitArgs& a) : log_(a.get<std::string>("log")) {}
  Column operator()(const Batch& in) {
    log_rows(log_, in.num_rows());
    return in.column(0);
  }

 private:
  std::string log_;
};

/// 3 x its argument, slowly (0.8 ms a row), logging each call's rows first (the UDF after).
class SlowLoggedTriple {
 public:
  explicit SlowLoggedTriple(const InitArgs& a) : log_(a.get<std::string>("log")) {}
  Column operator()(const Batch& in) {
    log_rows(log_, in.num_rows());
    std::this_thread::sleep_for(std::chrono::microseconds(800 * in.num_rows()));
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) b.append(3 * in.column(0).value<int64_t>(i));
    return b.finish();
  }

 private:
  std::string log_;
};

}  // namespace

EMBER_REGISTER_UDF(LoggedIdentity);
EMBER_REGISTER_UDF(SlowLoggedTriple);

// The job itself, group_by or sort, resumable or not: run only as a child process.
TEST(ResumeBreakerKillChild, DISABLED_Job) {
  const char* dir_env = std::getenv("EMBER_TEST_BREAKER_DIR");
  const char* out = std::getenv("EMBER_TEST_BREAKER_OUT");
  const char* shape = std::getenv("EMBER_TEST_BREAKER_JOB");
  if (!dir_env || !out || !shape) GTEST_SKIP() << "run by ResumeBreakerKill";
  const fs::path dir = dir_env;
  const bool resumable = std::getenv("EMBER_TEST_BREAKER_RESUMABLE") != nullptr;
  Udf up = Udf::cls<LoggedIdentity>("logged_identity")
               .returns(int64())
               .init_args({{"log", (dir / "upstream.log").string()}})
               .batch_size(100)
               .concurrency(2);
  Udf down = Udf::cls<SlowLoggedTriple>("slow_logged_triple")
                 .returns(int64())
                 .init_args({{"log", (dir / "downstream.log").string()}})
                 .batch_size(25)
                 .concurrency(2)
                 .isolation(Isolation::Process);
  DataFrame df = read_parquet((dir / "in" / "*.parquet").string()).with_column("u", up(col("id")));
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.threads = 2;
  o.resumable = resumable;
  if (std::string(shape) == "group_by") {
    df = df.group_by(std::vector<Expr>{(col("id") % 800).alias("k")})
             .agg({col("u").sum().alias("s")})
             .with_column("t", down(col("s")));
    o.checkpoint_rows = resumable ? 100 : 0;  // one partition after the group-by
  } else {
    df = df.sort({SortKey{col("u"), true}}).repartition(6).with_column("t", down(col("u")));
  }
  QueryResult r = df.write_parquet(out, {}, o);
  std::ofstream(dir / "stats") << r.stats.resumed_partitions << " " << r.stats.resumed_rows << " "
                               << r.stats.rows_out << " " << r.stats.udfs.at(0).inits << " "
                               << r.stats.udfs.at(0).rows << " " << r.stats.udfs.at(1).rows << "\n";
}

namespace {

pid_t spawn_job(const fs::path& dir, const std::string& shape, const std::string& out,
                bool resumable) {
  std::vector<std::string> env = {"EMBER_TEST_BREAKER_DIR=" + dir.string(),
                                  "EMBER_TEST_BREAKER_OUT=" + (dir / out).string(),
                                  "EMBER_TEST_BREAKER_JOB=" + shape};
  if (resumable) env.push_back("EMBER_TEST_BREAKER_RESUMABLE=1");
  return test_support::spawn_self("ResumeBreakerKillChild.*", env, (dir / "child.log").string(),
                                  /*append=*/true);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int64_t rows_logged(const fs::path& log) {
  std::ifstream in(log);
  int64_t total = 0, n = 0;
  while (in >> n) total += n;
  return total;
}

/// Waits for the child to exit 0; the test fails with its log otherwise.
void expect_success(pid_t pid, const fs::path& dir) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(dir / "child.log");
}

/// Every row of the Parquet set in `out`, as text, in file order.
std::vector<std::string> rows_of(const fs::path& out) {
  const Table t = read_parquet((out / "*.parquet").string()).collect();
  std::vector<std::string> rows(static_cast<size_t>(t.num_rows()));
  for (int c = 0; c < t.schema().num_fields(); ++c) {
    const Column col = t.column(t.schema().field(c).name);
    for (int64_t i = 0; i < t.num_rows(); ++i)
      rows[static_cast<size_t>(i)] += std::to_string(col.value<int64_t>(i)) + " ";
  }
  return rows;
}

/// Runs the job uninterrupted, then resumable, SIGKILLed once the journal lists the saved
/// breaker result and a piece, then again to completion.
void kill_after_the_breaker_and_resume(const std::string& shape) {
  std::string tmpl = (fs::path(testing::TempDir()) / "ember-breaker-kill-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  range(kRows, 4).write_parquet((dir / "in").string());
  expect_success(spawn_job(dir, shape, "reference", false), dir);
  fs::remove(dir / "upstream.log");
  fs::remove(dir / "downstream.log");

  const pid_t pid = spawn_job(dir, shape, "out", true);
  ASSERT_GT(pid, 0);
  const fs::path journal = dir / ".out.ember-resume.journal";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool killed = false;
  while (std::chrono::steady_clock::now() < deadline && ::waitpid(pid, &status, WNOHANG) == 0) {
    const std::string text = read_text(journal);
    if (text.find("\nbreaker ") != std::string::npos &&
        text.find("\npiece ") != std::string::npos) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(killed) << "the job ended before it could be killed:\n"
                      << read_text(dir / "child.log");
  EXPECT_EQ(rows_logged(dir / "upstream.log"), kRows);
  const int64_t downstream_first = rows_logged(dir / "downstream.log");  // a call in flight counts

  expect_success(spawn_job(dir, shape, "out", true), dir);
  EXPECT_EQ(rows_logged(dir / "upstream.log"), kRows)
      << "the rerun ran the UDF before the " << shape << " again";
  int64_t resumed_partitions = 0, resumed_rows = 0, rows_out = 0, up_inits = -1, up_rows = -1,
          down_rows = -1;
  std::ifstream(dir / "stats") >> resumed_partitions >> resumed_rows >> rows_out >> up_inits >>
      up_rows >> down_rows;
  EXPECT_EQ(up_inits, 0);
  EXPECT_EQ(up_rows, 0);
  EXPECT_GT(resumed_rows, 0);
  const std::vector<std::string> want = rows_of(dir / "reference");
  EXPECT_EQ(rows_out, static_cast<int64_t>(want.size()));
  EXPECT_EQ(rows_of(dir / "out"), want);
  // The rerun computes only the rows no piece kept.
  EXPECT_EQ(down_rows, static_cast<int64_t>(want.size()) - resumed_rows);
  EXPECT_FALSE(fs::exists(journal));
  std::printf("%s: killed after %lld downstream rows; the rerun kept %lld partitions, %lld rows\n",
              shape.c_str(), static_cast<long long>(downstream_first),
              static_cast<long long>(resumed_partitions), static_cast<long long>(resumed_rows));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace

TEST(ResumeBreakerKill, AGroupByJobKilledInItsWritePipelineResumesFromTheSavedResult) {
  kill_after_the_breaker_and_resume("group_by");
}

TEST(ResumeBreakerKill, ASortJobKilledInItsWritePipelineResumesFromTheSavedResult) {
  kill_after_the_breaker_and_resume("sort");
}
