// Process-isolated actors through whole queries.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Returns the worker's pid for every row.
class WhoAmI {
 public:
  explicit WhoAmI(const InitArgs&) {}
  Column operator()(const Batch& in) {
    return Column::repeat(Value{static_cast<int64_t>(getpid())}, int64(), in.num_rows());
  }
};

/// Squares its argument; aborts the worker on the first call when "crash_marker" is a path
/// that does not exist yet (it creates it first, so the retry succeeds).
class Square {
 public:
  explicit Square(const InitArgs& a)
      : marker_(a.has("crash_marker") ? a.get<std::string>("crash_marker") : "") {}
  Column operator()(const Batch& in) {
    if (!marker_.empty() && access(marker_.c_str(), F_OK) != 0) {
      FILE* f = std::fopen(marker_.c_str(), "w");
      if (f) std::fclose(f);
      std::abort();
    }
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      int64_t v = in.column(0).value<int64_t>(i);
      b.append(v * v);
    }
    return b.finish();
  }

 private:
  std::string marker_;
};

/// Appends a line to the file "log" per construction ("start") and per call ("call <first
/// id>"), then fails every call: with "segv" by killing its worker with SIGSEGV, else by
/// throwing. Calls of thread actors are also counted in `thread_calls`.
class AlwaysFails {
 public:
  explicit AlwaysFails(const InitArgs& a)
      : log_(a.get<std::string>("log")), segv_(a.get<std::string>("how") == "segv") {
    append("start");
  }
  Column operator()(const Batch& in) {
    append("call " + std::to_string(in.column(0).value<int64_t>(0)));
    if (!segv_) {
      thread_calls++;
      throw std::runtime_error("this batch cannot be scored");
    }
    const rlimit none{0, 0};
    setrlimit(RLIMIT_CORE, &none);  // the crash is the point; leave no core file
    signal(SIGSEGV, SIG_DFL);       // die of it even where a sanitizer installed a handler
    raise(SIGSEGV);
    std::abort();
  }
  inline static std::atomic<int> thread_calls{0};

 private:
  void append(const std::string& line) {
    const std::string text = line + "\n";
    int fd = open(log_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    [[maybe_unused]] ssize_t n = write(fd, text.data(), text.size());
    close(fd);
  }
  std::string log_;
  bool segv_;
};

}  // namespace

EMBER_REGISTER_UDF(WhoAmI);
EMBER_REGISTER_UDF(Square);
EMBER_REGISTER_UDF(AlwaysFails);

namespace {

RunOptions machine() {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  return o;
}

}  // namespace

TEST(ProcessQuery, ActorsRunInOtherProcessesOneEach) {
  Udf who = Udf::cls<WhoAmI>("who").returns(int64()).concurrency(2).batch_size(100).isolation(
      Isolation::Process);
  QueryResult r = range(5000, 8).with_column("pid", who(col("id"))).execute(machine());
  Column pid = r.table.column("pid");
  std::set<int64_t> pids;
  for (int64_t i = 0; i < pid.size(); ++i) pids.insert(pid.value<int64_t>(i));
  EXPECT_EQ(pids.count(getpid()), 0u);
  EXPECT_LE(pids.size(), 2u);
  EXPECT_EQ(r.stats.udfs.at(0).inits, 2);
}

TEST(ProcessQuery, CrashedWorkerIsRetriedAndNoRowIsLostOrDuplicated) {
  std::string marker = testing::TempDir() + "/ember_square_crash_" + std::to_string(getpid());
  std::remove(marker.c_str());
  Udf sq = Udf::cls<Square>("square")
               .returns(int64())
               .init_args({{"crash_marker", marker}})
               .batch_size(64)
               .concurrency(1)
               .max_retries(1)
               .isolation(Isolation::Process);
  QueryResult r = range(2000, 4).with_column("sq", sq(col("id"))).execute(machine());
  Column c = r.table.column("sq");
  ASSERT_EQ(c.size(), 2000);
  for (int64_t i = 0; i < 2000; ++i) ASSERT_EQ(c.value<int64_t>(i), i * i) << i;
  EXPECT_EQ(r.stats.udfs.at(0).inits, 2);  // the original worker and its replacement
  std::remove(marker.c_str());
}

TEST(ProcessQuery, CrashWithoutRetriesIsUdfError) {
  std::string marker = testing::TempDir() + "/ember_square_crash2_" + std::to_string(getpid());
  std::remove(marker.c_str());
  Udf sq = Udf::cls<Square>("square")
               .returns(int64())
               .init_args({{"crash_marker", marker}})
               .batch_size(64)
               .isolation(Isolation::Process);
  try {
    range(1000).with_column("sq", sq(col("id"))).collect(machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("square"), std::string::npos) << m;
    EXPECT_NE(m.find("SIGABRT"), std::string::npos) << m;
  }
  std::remove(marker.c_str());
}

namespace {

/// What AlwaysFails logged: constructions, and the first id of every batch it was called on.
struct FailureLog {
  int starts = 0;
  std::vector<int64_t> calls;
};

FailureLog read_failure_log(const std::string& path) {
  FailureLog log;
  std::ifstream in(path);
  std::string word;
  while (in >> word) {
    if (word == "start") ++log.starts;
    int64_t id = 0;
    if (word == "call" && in >> id) log.calls.push_back(id);
  }
  return log;
}

/// Runs a query of many batches over AlwaysFails and returns its error message.
std::string fail_query(const std::string& log, const std::string& how, Isolation isolation,
                       int actors, int max_retries) {
  std::remove(log.c_str());
  Udf bad = Udf::cls<AlwaysFails>("bad")
                .returns(int64())
                .init_args({{"log", log}, {"how", how}})
                .batch_size(16)
                .concurrency(actors)
                .max_retries(max_retries)
                // Retries due at once run before queued batches: each actor finishes one
                // batch's chain of attempts before it takes another.
                .retry_backoff(std::chrono::milliseconds(0), std::chrono::milliseconds(0))
                .isolation(isolation);
  try {
    range(4000, 4).with_column("b", bad(col("id"))).collect(machine());
  } catch (const UdfError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected UdfError";
  return "";
}

class FailedProcessQuery : public testing::TestWithParam<int> {};

TEST_P(FailedProcessQuery, StartsNoWorkerAfterTheFirstBatchGivesUp) {
  const int actors = GetParam();
  const int retries = 2;
  const std::string log = testing::TempDir() + "/ember_always_segv_" + std::to_string(getpid());
  const std::string m = fail_query(log, "segv", Isolation::Process, actors, retries);
  EXPECT_NE(m.find("udf 'bad' actor #"), std::string::npos) << m;
  EXPECT_NE(m.find("SIGSEGV"), std::string::npos) << m;
  EXPECT_NE(m.find("gave up after 2 retries (max_retries = 2)"), std::string::npos) << m;
  // 250 batches were there to run; only the chains already under way when the first batch gave
  // up may finish: one actor dies exactly 1 + max_retries times, each further actor at most as
  // many times again, and never on a batch that was still queued.
  const FailureLog f = read_failure_log(log);
  if (actors == 1) {
    EXPECT_EQ(f.starts, 1 + retries);
    EXPECT_EQ(f.calls.size(), static_cast<size_t>(1 + retries));
  }
  EXPECT_GE(static_cast<int>(f.calls.size()), 1 + retries);
  EXPECT_LE(static_cast<int>(f.calls.size()), f.starts);
  EXPECT_LE(f.starts, actors * (1 + retries));
  EXPECT_LE(std::set<int64_t>(f.calls.begin(), f.calls.end()).size(), static_cast<size_t>(actors));
  std::remove(log.c_str());
}

INSTANTIATE_TEST_SUITE_P(Actors, FailedProcessQuery, testing::Values(1, 2));

TEST(FailedThreadQuery, StopsCallingTheUdfAfterTheFirstFailure) {
  for (int actors : {1, 2}) {
    AlwaysFails::thread_calls = 0;
    const std::string log = testing::TempDir() + "/ember_always_throws_" + std::to_string(getpid());
    const std::string m = fail_query(log, "throw", Isolation::Thread, actors, 0);
    EXPECT_NE(m.find("this batch cannot be scored"), std::string::npos) << m;
    // Each actor may have been in a call when the first failed; none starts another.
    EXPECT_GE(AlwaysFails::thread_calls.load(), 1);
    EXPECT_LE(AlwaysFails::thread_calls.load(), actors) << actors << " actors";
    // Actors construct while the query runs: one whose construction had not begun when the
    // query failed is never constructed.
    const int starts = read_failure_log(log).starts;
    EXPECT_GE(starts, 1);
    EXPECT_LE(starts, actors);
    std::remove(log.c_str());
  }
}

}  // namespace
