// max_concurrency(k) with Isolation::Process: one worker serves k calls at once on k call
// lanes, constructed once; a worker that dies under several calls loses and duplicates no
// row, and fails only the call whose fault it was (the one past its deadline; for a crash,
// the one that crashes again when run alone).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_udfs.h"
#include "udf/actor_pool.h"
#include "worker_test_kit.h"

namespace ember::test {

/// Sleeps init arg "sleep_ms" per call, then returns "<x+1>/<peak>/<constructions>/<pid>" per
/// row: peak = most calls this worker has run at once so far. A batch holding the value
/// "crash_on" aborts the worker a quarter into its sleep (only the first time when "marker"
/// names a file: it is created then); one holding "hang_on" never returns.
class Overlapping {
 public:
  explicit Overlapping(const InitArgs& a)
      : sleep_(a.get<int64_t>("sleep_ms")),
        crash_on_(a.get<int64_t>("crash_on")),
        hang_on_(a.get<int64_t>("hang_on")),
        marker_(a.get<std::string>("marker")) {
    ++constructions;
  }
  Column operator()(const Batch& in) {
    const int now = ++running;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    const Column& x = in.column(0);
    bool crash = false, hang = false;
    for (int64_t i = 0; i < x.size(); ++i) {
      crash = crash || x.value<int64_t>(i) == crash_on_;
      hang = hang || x.value<int64_t>(i) == hang_on_;
    }
    if (hang) std::this_thread::sleep_for(std::chrono::hours(1));
    if (crash && (marker_.empty() || !std::filesystem::exists(marker_))) {
      // A quarter into the call, while the calls that began beside it still run.
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ / 4));
      if (!marker_.empty()) std::ofstream(marker_) << "crashed";
      abort_quietly();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_));
    const std::string tail = "/" + std::to_string(peak.load()) + "/" +
                             std::to_string(constructions.load()) + "/" +
                             std::to_string(::getpid());
    std::vector<std::string> out;
    for (int64_t i = 0; i < x.size(); ++i)
      out.push_back(std::to_string(x.value<int64_t>(i) + 1) + tail);
    --running;
    return Column::from(std::move(out));
  }
  inline static std::atomic<int> running{0}, peak{0}, constructions{0};

 private:
  int64_t sleep_, crash_on_, hang_on_;
  std::string marker_;
};

}  // namespace ember::test

EMBER_REGISTER_UDF(ember::test::Overlapping);

namespace ember::test {
namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  int64_t sleep_ms = 100, crash_on = -1, hang_on = -1;
  std::string marker;
  int actors = 1, calls = 4, max_retries = 0;
  OnError on_error = OnError::Raise;
  std::chrono::milliseconds timeout{0};
};

std::shared_ptr<const UdfSpec> overlapping(const Settings& s) {
  auto spec = std::make_shared<UdfSpec>(
      *process_spec<Overlapping>("overlap", "ember::test::Overlapping", utf8(),
                                 {{"sleep_ms", s.sleep_ms},
                                  {"crash_on", s.crash_on},
                                  {"hang_on", s.hang_on},
                                  {"marker", s.marker}},
                                 s.max_retries));
  spec->concurrency = s.actors;
  spec->max_concurrency = s.calls;
  spec->on_error = s.on_error;
  spec->timeout = s.timeout;
  spec->retry_initial = spec->retry_max = std::chrono::milliseconds(0);
  return spec;
}

/// One batch's outcome as the pool delivered it.
struct Outcome {
  int deliveries = 0;
  std::optional<Column> column;
  std::string error;
};

/// Dispatches batches {b * 10 .. b * 10 + 9} for b < n and waits for every outcome.
std::vector<Outcome> run_batches(ActorPool& pool, int n) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Outcome> out(static_cast<size_t>(n));
  int done = 0;
  for (int b = 0; b < n; ++b) {
    std::vector<int64_t> values;
    for (int64_t i = 0; i < 10; ++i) values.push_back(b * 10 + i);
    pool.dispatch(int_batch(values), [&, b](CallResult r) {
      std::lock_guard lock(mu);
      Outcome& o = out[static_cast<size_t>(b)];
      ++o.deliveries;
      if (auto* c = std::get_if<Column>(&r)) {
        o.column = *c;
      } else {
        try {
          std::rethrow_exception(std::get<std::exception_ptr>(r));
        } catch (const std::exception& e) {
          o.error = e.what();
        }
      }
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock lock(mu);
  EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(120), [&] { return done == n; }))
      << done << " of " << n << " batches came back";
  return out;
}

/// The fields of row `i` of a result: x + 1, peak, constructions, pid.
std::vector<int64_t> fields(const Column& c, int64_t i) {
  std::vector<int64_t> f;
  std::string s(c.value<std::string_view>(i));
  size_t start = 0;
  for (;;) {
    const size_t slash = s.find('/', start);
    f.push_back(std::stoll(s.substr(start, slash - start)));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return f;
}

/// Checks batch b holds b * 10 + i + 1 on row i, exactly once; returns its first row's fields.
std::vector<int64_t> expect_right(const Outcome& o, int b) {
  EXPECT_EQ(o.deliveries, 1) << "batch " << b;
  if (!o.column) {
    ADD_FAILURE() << "batch " << b << " failed: " << o.error;
    return {0, 0, 0, 0};
  }
  EXPECT_EQ(o.column->size(), 10) << "batch " << b;
  for (int64_t i = 0; i < o.column->size(); ++i)
    EXPECT_EQ(fields(*o.column, i)[0], b * 10 + i + 1) << "batch " << b << " row " << i;
  return fields(*o.column, 0);
}

TEST(ProcessConcurrentCalls, OneWorkerServesKCallsAtOnceConstructedOnce) {
  Settings s;
  s.actors = 2;
  s.calls = 4;
  ActorPool pool(overlapping(s), {actor_context(0), actor_context(1)});
  pool.start();
  const auto t0 = Clock::now();
  const auto out = run_batches(pool, 32);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::map<int64_t, int64_t> peak_by_pid;
  for (int b = 0; b < 32; ++b) {
    const auto f = expect_right(out[static_cast<size_t>(b)], b);
    EXPECT_EQ(f[2], 1) << "one construction per worker";
    peak_by_pid[f[3]] = std::max(peak_by_pid[f[3]], f[1]);
  }
  ASSERT_EQ(peak_by_pid.size(), 2u) << "one worker per actor";
  for (const auto& [pid, peak] : peak_by_pid) EXPECT_EQ(peak, 4) << "worker " << pid;
  // 32 calls of 100 ms on 2 x 4 lanes: about 0.4 s; one lane per actor could not go below
  // 1.6 s.
  EXPECT_LT(seconds, 1.6);
  EXPECT_EQ(pool.stats().inits, 2);
  EXPECT_EQ(pool.stats().batches, 32);
  pool.stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessConcurrentCalls, ACrashUnderSeveralCallsRerunsThemAloneAndLosesNoRow) {
  TempDir dir;
  Settings s;
  s.sleep_ms = 400;  // the calls beside batch 5 still have 300 ms to go when it crashes
  s.crash_on = 57;   // batch 5, which crashes once, with three other calls in flight
  s.marker = dir.file("crashed");
  ActorPool pool(overlapping(s), {actor_context(0)});
  pool.start();
  const auto out = run_batches(pool, 16);
  std::set<int64_t> pids;
  for (int b = 0; b < 16; ++b) pids.insert(expect_right(out[static_cast<size_t>(b)], b)[3]);
  EXPECT_TRUE(std::filesystem::exists(s.marker));
  EXPECT_EQ(pids.size(), 2u) << "the worker that crashed, and its replacement";
  // Nobody could tell which call crashed it, so each call in flight ran again alone on the
  // fresh worker, where none crashed: no batch failed, none was retried by the pool.
  EXPECT_EQ(pool.stats().retries, 0);
  EXPECT_EQ(pool.stats().inits, 2);
  pool.stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessConcurrentCalls, ACallThatCrashesAgainAloneIsTheOneThatFails) {
  Settings s;
  s.sleep_ms = 200;
  s.crash_on = 57;  // every time
  s.max_retries = 1;
  s.on_error = OnError::Null;  // the pool keeps serving: the failed batch is the caller's
  ActorPool pool(overlapping(s), {actor_context(0)});
  pool.start();
  const auto out = run_batches(pool, 16);
  for (int b = 0; b < 16; ++b) {
    const Outcome& o = out[static_cast<size_t>(b)];
    if (b != 5) {
      expect_right(o, b);
      continue;
    }
    EXPECT_EQ(o.deliveries, 1);
    EXPECT_FALSE(o.column);
    EXPECT_NE(o.error.find("(SIGABRT) while running a batch of 10 rows"), std::string::npos)
        << o.error;
    EXPECT_NE(o.error.find("gave up after 1 retry"), std::string::npos) << o.error;
  }
  EXPECT_EQ(pool.stats().retries, 1) << "only the batch that crashed was retried";
  EXPECT_EQ(pool.stats().batches, 15);
  pool.stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessConcurrentCalls, ACallPastItsDeadlineFailsAloneAndTheOthersRunAgain) {
  Settings s;
  s.sleep_ms = 300;
  s.hang_on = 37;  // batch 3 hangs; the lanes beside it keep serving 300 ms calls
  s.timeout = std::chrono::milliseconds(1000);
  s.on_error = OnError::Null;
  ActorPool pool(overlapping(s), {actor_context(0)});
  pool.start();
  const auto out = run_batches(pool, 16);
  for (int b = 0; b < 16; ++b) {
    const Outcome& o = out[static_cast<size_t>(b)];
    if (b != 3) {
      expect_right(o, b);
      continue;
    }
    EXPECT_EQ(o.deliveries, 1);
    EXPECT_FALSE(o.column);
    EXPECT_NE(o.error.find("ran past its timeout of 1000 ms"), std::string::npos) << o.error;
    EXPECT_NE(o.error.find("was killed (SIGKILL), a fresh one constructed in its place"),
              std::string::npos)
        << o.error;
  }
  EXPECT_EQ(pool.stats().timeouts, 1);
  EXPECT_EQ(pool.stats().retries, 0) << "the calls killed beside it are not failures";
  EXPECT_EQ(pool.stats().inits, 2);
  pool.stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

}  // namespace
}  // namespace ember::test
