// ActorPool deadlines for thread actors: a call past Udf::timeout fails (and is retried or
// delivered as failed) without waiting for it, its actor is retired and a fresh one
// constructed; a hung call without a timeout does not hold stop() past its grace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pool_test_udfs.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

namespace ember {
namespace {

using pool_test::numbers;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// What Sleepy instances did; process-wide, reset by each test.
struct SleepyLog {
  std::atomic<int> constructed{0}, destroyed{0}, hangs_left{0}, hung_calls_done{0};
  void reset(int hangs) {
    constructed = destroyed = hung_calls_done = 0;
    hangs_left = hangs;
  }
  /// Waits (bounded) until every instance is destroyed: a retired actor's thread has finished.
  bool wait_all_destroyed() {
    const auto until = Clock::now() + std::chrono::seconds(30);
    while (destroyed.load() < constructed.load()) {
      if (Clock::now() > until) return false;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return true;
  }
};
SleepyLog sleepy;

/// Returns x + 1. A call whose first row is init arg "bad" sleeps "hang_ms" first, while
/// `sleepy.hangs_left` is positive.
class Sleepy {
 public:
  explicit Sleepy(const InitArgs& a)
      : bad_(a.get<int64_t>("bad")), hang_ms_(a.get<int64_t>("hang_ms")) {
    sleepy.constructed++;
  }
  ~Sleepy() { sleepy.destroyed++; }
  Sleepy(const Sleepy&) = delete;
  Sleepy& operator=(const Sleepy&) = delete;

  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    if (x.value<int64_t>(0) == bad_ && sleepy.hangs_left.fetch_sub(1) > 0) {
      std::this_thread::sleep_for(milliseconds(hang_ms_));
      sleepy.hung_calls_done++;
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(x.value<int64_t>(i) + 1);
    return Column::from(std::move(out));
  }

 private:
  int64_t bad_;
  int64_t hang_ms_;
};

/// Outcomes by dispatch id, each with when it arrived.
class Outcomes {
 public:
  std::function<void(CallResult)> callback(int id) {
    return [this, id](CallResult r) {
      std::lock_guard lock(mu_);
      results_.emplace(id, std::make_pair(std::move(r), Clock::now()));
      cv_.notify_all();
    };
  }
  bool wait_for(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return results_.size() >= n; });
  }
  std::pair<CallResult, Clock::time_point> at(int id) {
    std::lock_guard lock(mu_);
    return results_.at(id);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, std::pair<CallResult, Clock::time_point>> results_;
};

std::string error_text(const CallResult& r) {
  if (!std::holds_alternative<std::exception_ptr>(r)) return "";
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(r));
  } catch (const std::exception& e) {
    return e.what();
  }
}

void expect_plus_one(const CallResult& r, int64_t start, int64_t n) {
  ASSERT_TRUE(std::holds_alternative<Column>(r)) << error_text(r);
  const Column& c = std::get<Column>(r);
  ASSERT_EQ(c.size(), n);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(c.value<int64_t>(i), start + i + 1);
}

Udf sleepy_udf(int64_t hang_ms) {
  return Udf::cls<Sleepy>("sleepy").returns(int64()).init_args(
      {{"bad", int64_t{0}}, {"hang_ms", hang_ms}});
}

std::shared_ptr<const UdfSpec> spec_of(const Udf& u) { return detail::UdfAccess::spec(u); }

TEST(ActorPoolDeadline, AThreadActorPastItsTimeoutIsRetiredAndReplaced) {
  sleepy.reset(1);
  ActorPool pool(spec_of(sleepy_udf(3000).timeout(milliseconds(200)).on_error(OnError::Null)), {});
  pool.start();
  Outcomes out;
  const auto t0 = Clock::now();
  pool.dispatch(numbers(0, 5), out.callback(0));
  pool.dispatch(numbers(10, 5), out.callback(1));
  ASSERT_TRUE(out.wait_for(2));
  const auto [hung, hung_at] = out.at(0);
  const std::string m = error_text(hung);
  EXPECT_NE(m.find("udf 'sleepy' actor #0: a call on 1 arg (x: int64), 5 rows ran past its "
                   "timeout of 200 ms; the actor was retired"),
            std::string::npos)
      << m;
  EXPECT_GE(hung_at - t0, milliseconds(200));
  EXPECT_LT(hung_at - t0, milliseconds(2500)) << "the pool must not wait for the hung call";
  // The batch behind it ran on the fresh actor.
  expect_plus_one(out.at(1).first, 10, 5);
  EXPECT_EQ(sleepy.hung_calls_done.load(), 0) << "the hung call is still running";
  EXPECT_EQ(pool.stats().timeouts, 1);
  EXPECT_EQ(pool.stats().inits, 2) << "the fresh actor counts as a construction";
  EXPECT_EQ(sleepy.constructed.load(), 2);
  pool.stop();
  // The retired actor's thread finishes its call on its own and destroys its instance.
  ASSERT_TRUE(sleepy.wait_all_destroyed());
  EXPECT_EQ(sleepy.hung_calls_done.load(), 1);
}

TEST(ActorPoolDeadline, ATimedOutCallIsRetriedOnTheFreshActor) {
  sleepy.reset(1);
  ActorPool pool(spec_of(sleepy_udf(1000)
                             .timeout(milliseconds(200))
                             .max_retries(1)
                             .retry_backoff(milliseconds(1), milliseconds(1))),
                 {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  expect_plus_one(out.at(0).first, 0, 5);
  const UdfStats s = pool.stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.retries, 1);
  EXPECT_EQ(s.inits, 2);
  EXPECT_EQ(s.batches, 1);
  pool.stop();
  ASSERT_TRUE(sleepy.wait_all_destroyed());
}

TEST(ActorPoolDeadline, WithSeveralCallsPerActorOnlyTheLateOneFailsAndTheActorIsReplacedOnce) {
  sleepy.reset(1);
  // One actor, four lanes: the hung call's lane is retired with the actor; the other lanes
  // finish their calls on the old actor, then serve on the fresh one.
  ActorPool pool(
      spec_of(
          sleepy_udf(1000).timeout(milliseconds(200)).max_concurrency(4).on_error(OnError::Null)),
      {});
  pool.start();
  Outcomes out;
  constexpr int kBatches = 40;
  for (int b = 0; b < kBatches; ++b) pool.dispatch(numbers(b * 10, 5), out.callback(b));
  ASSERT_TRUE(out.wait_for(kBatches));
  // The other batches may all have finished on the old actor before the deadline passed: one
  // more batch needs the fresh one.
  pool.dispatch(numbers(kBatches * 10, 5), out.callback(kBatches));
  ASSERT_TRUE(out.wait_for(kBatches + 1));
  EXPECT_NE(error_text(out.at(0).first).find("ran past its timeout of 200 ms"), std::string::npos);
  for (int b = 1; b <= kBatches; ++b) expect_plus_one(out.at(b).first, b * 10, 5);
  const UdfStats s = pool.stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.inits, 2) << "the retired actor is replaced once, whatever its other lanes do";
  EXPECT_EQ(s.batches, kBatches);
  pool.stop();
  ASSERT_TRUE(sleepy.wait_all_destroyed());
  EXPECT_EQ(sleepy.constructed.load(), 2);
}

TEST(ActorPoolDeadline, UnderRaiseATimeoutFailsThePoolWithoutWaiting) {
  sleepy.reset(1);
  ActorPool pool(spec_of(sleepy_udf(3000).timeout(milliseconds(100))), {});
  pool.start();
  Outcomes out;
  const auto t0 = Clock::now();
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  EXPECT_NE(error_text(out.at(0).first).find("ran past its timeout of 100 ms"), std::string::npos);
  pool.stop();
  EXPECT_LT(Clock::now() - t0, milliseconds(2500)) << "stop() must not wait for the hung call";
  ASSERT_TRUE(sleepy.wait_all_destroyed());
}

TEST(ActorPoolDeadline, AHungCallWithoutATimeoutDoesNotHoldTeardownPastItsGrace) {
  sleepy.reset(1);
  ActorPool pool(spec_of(sleepy_udf(3000)), {});
  pool.set_teardown_grace(milliseconds(100));
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  const auto entered = Clock::now() + std::chrono::seconds(10);
  while (pool.busy_actors() == 0 && Clock::now() < entered)
    std::this_thread::sleep_for(milliseconds(1));
  ASSERT_EQ(pool.busy_actors(), 1);
  const auto t0 = Clock::now();
  pool.stop();  // the query has ended (failed elsewhere): nothing will read this batch
  EXPECT_LT(Clock::now() - t0, milliseconds(2500));
  ASSERT_TRUE(out.wait_for(1));
  EXPECT_NE(error_text(out.at(0).first).find("its actor pool stopped"), std::string::npos);
  EXPECT_EQ(pool.in_flight(), 0);
  EXPECT_EQ(sleepy.hung_calls_done.load(), 0);
  ASSERT_TRUE(sleepy.wait_all_destroyed());
  EXPECT_EQ(sleepy.hung_calls_done.load(), 1);
}

}  // namespace
}  // namespace ember
