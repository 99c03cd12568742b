// A resumable Parquet -> UDF (process actors) -> Parquet job, SIGKILLed at random moments 20
// times and rerun until it completes: the final output equals the uninterrupted one, with no
// row missing or twice, and the rows computed again stay within the checkpoints' bound.
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
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "support/self_child.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kRows = 24000;
constexpr int kFiles = 12;
constexpr int64_t kCheckpointRows = 100;
constexpr int kThreads = 2;
constexpr int kKills = 20;
constexpr int64_t kBatch = 50;  // rows a UDF call takes
constexpr int kActors = 2;

/// id * id + 1, slowly (about 40 ms a call of 50 rows), first appending the call's row count
/// to the file "log": every row a worker starts on is counted, even one killed mid-call.
class SlowSquare {
 public:
  explicit SlowSquare(const InitArgs& a) : log_(a.get<std::string>("log")) {}
  Column operator()(const Batch& in) {
    const std::string line = std::to_string(in.num_rows()) + "\n";
    const int fd = ::open(log_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(800 * in.num_rows()));
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = in.column(0).value<int64_t>(i);
      b.append(v * v + 1);
    }
    return b.finish();
  }

 private:
  std::string log_;
};

}  // namespace

EMBER_REGISTER_UDF(SlowSquare);

// The job itself: run only as a child process of the kill loop.
TEST(ResumeKillLoopChild, DISABLED_Job) {
  const char* input = std::getenv("EMBER_TEST_RESUME_INPUT");
  const char* out = std::getenv("EMBER_TEST_RESUME_OUT");
  const char* log = std::getenv("EMBER_TEST_RESUME_LOG");
  const char* stats = std::getenv("EMBER_TEST_RESUME_STATS");
  if (!input || !out || !log || !stats) GTEST_SKIP() << "run by ResumeKillLoop";
  Udf square = Udf::cls<SlowSquare>("slow_square")
                   .returns(int64())
                   .init_args({{"log", std::string(log)}})
                   .batch_size(kBatch)
                   .concurrency(kActors)
                   .isolation(Isolation::Process);
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.threads = kThreads;
  o.resumable = true;
  o.checkpoint_rows = kCheckpointRows;
  QueryResult r =
      read_parquet(input).with_column("sq", square(col("id"))).write_parquet(out, {}, o);
  std::ofstream(stats) << r.stats.resumed_partitions << " " << r.stats.resumed_rows << " "
                       << r.stats.rows_out << "\n";
}

namespace {

pid_t spawn_job(const fs::path& dir) {
  return test_support::spawn_self("ResumeKillLoopChild.*",
                                  {"EMBER_TEST_RESUME_INPUT=" + (dir / "in" / "*.parquet").string(),
                                   "EMBER_TEST_RESUME_OUT=" + (dir / "out").string(),
                                   "EMBER_TEST_RESUME_LOG=" + (dir / "udf.log").string(),
                                   "EMBER_TEST_RESUME_STATS=" + (dir / "stats").string()},
                                  (dir / "child.log").string(), /*append=*/true);
}

int64_t rows_computed(const fs::path& log) {
  std::ifstream in(log);
  int64_t total = 0, n = 0;
  while (in >> n) total += n;
  return total;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The piece records a resumable write's journal holds so far.
int64_t pieces(const fs::path& journal) {
  const std::string text = read_text(journal);
  int64_t n = 0;
  for (size_t at = text.find("piece "); at != std::string::npos; at = text.find("piece ", at + 1))
    ++n;
  return n;
}

}  // namespace

TEST(ResumeKillLoop, KilledAtRandomMomentsTheJobStillWritesEveryRowOnce) {
  std::string tmpl = (fs::path(testing::TempDir()) / "ember-kill-loop-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  range(kRows, kFiles).write_parquet((dir / "in").string());

  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  // Under AddressSanitizer, or on a busy machine, a child's start and its first checkpoint (a
  // piece made durable with fsync, which a busy disk can hold up for seconds) take far longer
  // and vary widely. So every other kill's random moment is counted from the child's first
  // newly journaled piece, so that those kills land among checkpoints; the others count from
  // the child's start (under AddressSanitizer, every kill counts from the first piece).
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kFromFirstPiece = true;
#else
  constexpr bool kFromFirstPiece = false;
#endif
  const fs::path journal = dir / ".out.ember-resume.journal";
  std::uniform_int_distribution<int> delay_ms(50, 700);
  int kills = 0, runs = 0;
  bool completed = false;
  while (!completed && runs < 60) {
    const int64_t pieces_before = pieces(journal);
    const pid_t pid = spawn_job(dir);
    ASSERT_GT(pid, 0);
    ++runs;
    int status = 0;
    if (kills < kKills) {
      if (kFromFirstPiece || kills % 2 == 1) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        while (pieces(journal) <= pieces_before && std::chrono::steady_clock::now() < give_up &&
               ::waitpid(pid, &status, WNOHANG) == 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms(rng));
      while (std::chrono::steady_clock::now() < until && ::waitpid(pid, &status, WNOHANG) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (::waitpid(pid, &status, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ++kills;
        continue;
      }
    } else {
      ::waitpid(pid, &status, 0);
    }
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "run " << runs << " failed:\n"
                                                               << read_text(dir / "child.log");
    completed = true;
  }
  ASSERT_TRUE(completed);
  EXPECT_GE(kills, kKills / 2) << "the job ended too soon to be killed often";

  // The committed output, against a reference evaluator: every id once, in order.
  const Table t = read_parquet((dir / "out" / "*.parquet").string()).collect();
  ASSERT_EQ(t.num_rows(), kRows);
  const Column id = t.column("id"), sq = t.column("sq");
  for (int64_t i = 0; i < kRows; ++i) {
    ASSERT_EQ(id.value<int64_t>(i), i);
    ASSERT_EQ(sq.value<int64_t>(i), i * i + 1);
  }
  // Each kill loses, in each partition running then (at most max(4, 2 x threads) at once),
  // the rows since its last checkpoint and the results its actor pool holds back for
  // re-sequencing (a window of 2 x actors + 2 calls); plus the calls running (one per actor).
  constexpr int64_t kWindowRows = (2 * kActors + 2) * kBatch;
  const int64_t per_kill =
      std::max(4, 2 * kThreads) * (kCheckpointRows + kWindowRows) + kActors * kBatch;
  const int64_t recomputed = rows_computed(dir / "udf.log") - kRows;
  EXPECT_GE(recomputed, 0);
  EXPECT_LE(recomputed, int64_t{kills} * per_kill);
  int64_t resumed_partitions = 0, resumed_rows = 0, rows_out = 0;
  std::ifstream(dir / "stats") >> resumed_partitions >> resumed_rows >> rows_out;
  if (kills > 0) {
    EXPECT_GT(resumed_rows, 0);
  }
  EXPECT_EQ(rows_out, kRows);
  EXPECT_FALSE(fs::exists(dir / ".out.ember-resume"));
  EXPECT_FALSE(fs::exists(dir / ".out.ember-resume.journal"));
  std::printf(
      "kill loop: %d kills, %d runs, %lld rows recomputed (bound %lld), last run kept "
      "%lld partitions and %lld rows\n",
      kills, runs, static_cast<long long>(recomputed),
      static_cast<long long>(int64_t{kills} * per_kill), static_cast<long long>(resumed_partitions),
      static_cast<long long>(resumed_rows));
  std::error_code ec;
  fs::remove_all(dir, ec);
}
