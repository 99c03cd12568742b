// ActorPool retries: a call that throws is run again up to max_retries times after a backoff
// that waits in the pool, not on an actor; RetryAfter sets the wait; under Null and Skip a
// batch that still fails is delivered without failing the pool.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "pool_test_udfs.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

namespace ember {
namespace {

using pool_test::numbers;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// Calls seen by Flaky, in order: the first row of each and when it started.
struct Calls {
  std::mutex mu;
  std::vector<std::pair<int64_t, Clock::time_point>> seen;
  std::atomic<int> failures_left{0};
  void reset(int fail) {
    std::lock_guard lock(mu);
    seen.clear();
    failures_left = fail;
  }
  std::vector<std::pair<int64_t, Clock::time_point>> take() {
    std::lock_guard lock(mu);
    return seen;
  }
};
Calls calls;

/// Returns x + 1. A call whose first row is init arg "bad" (default -1) fails while
/// `calls.failures_left` is positive: with RetryAfter("retry_after_ms") if given, else by
/// throwing std::runtime_error("flaky"). Other calls always succeed.
class Flaky {
 public:
  explicit Flaky(const InitArgs& a)
      : bad_(a.has("bad") ? a.get<int64_t>("bad") : -1),
        retry_after_ms_(a.has("retry_after_ms") ? a.get<int64_t>("retry_after_ms") : -1) {}
  Column operator()(const Batch& in) {
    const int64_t first = in.column(0).value<int64_t>(0);
    {
      std::lock_guard lock(calls.mu);
      calls.seen.emplace_back(first, Clock::now());
    }
    if ((bad_ < 0 || first == bad_) && calls.failures_left.fetch_sub(1) > 0) {
      if (retry_after_ms_ >= 0) throw RetryAfter(milliseconds(retry_after_ms_));
      throw std::runtime_error("flaky");
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) + 1);
    return Column::from(std::move(out));
  }

 private:
  int64_t bad_;
  int64_t retry_after_ms_;
};

/// Outcomes in the order they were delivered, with a bounded wait.
class Outcomes {
 public:
  std::function<void(CallResult)> callback(int id) {
    return [this, id](CallResult r) {
      std::lock_guard lock(mu_);
      order_.push_back(id);
      results_.push_back(std::move(r));
      cv_.notify_all();
    };
  }
  bool wait_for(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return results_.size() >= n; });
  }
  std::vector<int> order() {
    std::lock_guard lock(mu_);
    return order_;
  }
  std::vector<CallResult> take() {
    std::lock_guard lock(mu_);
    return results_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> order_;
  std::vector<CallResult> results_;
};

std::string error_text(const CallResult& r) {
  if (!std::holds_alternative<std::exception_ptr>(r)) return "";
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(r));
  } catch (const UdfError& e) {
    return std::string("UdfError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
}

Udf flaky(InitArgs args = {}) {
  return Udf::cls<Flaky>("flaky").returns(int64()).init_args(std::move(args));
}

std::shared_ptr<const UdfSpec> spec_of(const Udf& u) { return detail::UdfAccess::spec(u); }

void expect_plus_one(const CallResult& r, int64_t start, int64_t n) {
  ASSERT_TRUE(std::holds_alternative<Column>(r)) << error_text(r);
  const Column& c = std::get<Column>(r);
  ASSERT_EQ(c.size(), n);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(c.value<int64_t>(i), start + i + 1);
}

TEST(ActorPoolRetry, FailsTwiceThenSucceedsWithinMaxRetries) {
  calls.reset(2);
  ActorPool pool(spec_of(flaky().max_retries(2).retry_backoff(milliseconds(1), milliseconds(2))),
                 {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 100), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  expect_plus_one(out.take()[0], 0, 100);
  EXPECT_EQ(calls.take().size(), 3u) << "the batch ran once and was retried twice";
  pool.stop();
  EXPECT_EQ(pool.stats().retries, 2);
  EXPECT_EQ(pool.stats().batches, 1);
  EXPECT_EQ(pool.stats().rows, 100);
}

TEST(ActorPoolRetry, GivesUpAfterMaxRetriesWithTheLastError) {
  calls.reset(100);
  ActorPool pool(spec_of(flaky().max_retries(2).retry_backoff(milliseconds(1), milliseconds(1))),
                 {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 10), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  const std::string m = error_text(out.take()[0]);
  EXPECT_NE(m.find("UdfError: udf 'flaky' failed on 1 arg (x: int64), 10 rows: flaky"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("gave up after 2 retries"), std::string::npos) << m;
  EXPECT_EQ(calls.take().size(), 3u);
  pool.stop();
  EXPECT_EQ(pool.stats().retries, 2);
}

TEST(ActorPoolRetry, BackoffDoublesWithJitterUpToItsCeiling) {
  calls.reset(4);
  // Waits of 20, 40, 80, 80 ms before the jitter; each is then between half and all of it.
  ActorPool pool(spec_of(flaky().max_retries(4).retry_backoff(milliseconds(20), milliseconds(80))),
                 {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  expect_plus_one(out.take()[0], 0, 5);
  auto seen = calls.take();
  ASSERT_EQ(seen.size(), 5u);
  const int64_t nominal[] = {20, 40, 80, 80};
  for (size_t i = 1; i < seen.size(); ++i) {
    const auto waited =
        std::chrono::duration_cast<milliseconds>(seen[i].second - seen[i - 1].second).count();
    EXPECT_GE(waited, nominal[i - 1] / 2) << "retry " << i;
    EXPECT_LT(waited, nominal[i - 1] + 1000) << "retry " << i;  // generous: a loaded machine
  }
  pool.stop();
  EXPECT_EQ(pool.stats().retries, 4);
}

TEST(ActorPoolRetry, RetryAfterSetsTheWait) {
  calls.reset(1);
  // The backoff alone would retry after at most 1 ms; the UDF asks for 150 ms.
  ActorPool pool(spec_of(flaky({{"retry_after_ms", int64_t{150}}})
                             .max_retries(1)
                             .retry_backoff(milliseconds(1), milliseconds(1))),
                 {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  expect_plus_one(out.take()[0], 0, 5);
  auto seen = calls.take();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_GE(seen[1].second - seen[0].second, milliseconds(150));
  pool.stop();
}

TEST(ActorPoolRetry, RetryAfterWithNoRetriesLeftIsAUdfError) {
  calls.reset(1);
  ActorPool pool(spec_of(flaky({{"retry_after_ms", int64_t{5}}})), {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  const std::string m = error_text(out.take()[0]);
  EXPECT_NE(m.find("UdfError: udf 'flaky' failed on 1 arg (x: int64), 5 rows: asked to be "
                   "retried after 5 ms"),
            std::string::npos)
      << m;
  pool.stop();
}

TEST(ActorPoolRetry, AWaitingRetryDoesNotHoldItsActor) {
  calls.reset(1);
  // One actor: the batch starting at 0 fails once and waits 300 ms; meanwhile the actor serves
  // the batch starting at 100, which is delivered first.
  ActorPool pool(spec_of(flaky({{"bad", int64_t{0}}})
                             .max_retries(1)
                             .retry_backoff(milliseconds(300), milliseconds(300))),
                 {});
  pool.start();
  Outcomes out;
  const auto t0 = Clock::now();
  pool.dispatch(numbers(0, 5), out.callback(0));
  pool.dispatch(numbers(100, 5), out.callback(1));
  ASSERT_TRUE(out.wait_for(2));
  EXPECT_EQ(out.order(), (std::vector<int>{1, 0}));
  auto results = out.take();
  expect_plus_one(results[0], 100, 5);
  expect_plus_one(results[1], 0, 5);
  EXPECT_GE(Clock::now() - t0, milliseconds(150));
  EXPECT_EQ(pool.busy_actors(), 0);
  pool.stop();
}

TEST(ActorPoolRetry, UnderNullAFailedBatchLeavesThePoolServing) {
  calls.reset(1000);
  ActorPool pool(spec_of(flaky({{"bad", int64_t{0}}}).on_error(OnError::Null)), {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  pool.dispatch(numbers(10, 5), out.callback(1));
  ASSERT_TRUE(out.wait_for(2));
  auto results = out.take();
  EXPECT_NE(error_text(results[0]).find("flaky"), std::string::npos);
  expect_plus_one(results[1], 10, 5);
  pool.stop();
}

TEST(ActorPoolRetry, UnderRaiseAFailedBatchStopsThePool) {
  calls.reset(1000);
  ActorPool pool(spec_of(flaky({{"bad", int64_t{0}}})), {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 5), out.callback(0));
  ASSERT_TRUE(out.wait_for(1));
  pool.dispatch(numbers(10, 5), out.callback(1));
  ASSERT_TRUE(out.wait_for(2));
  auto results = out.take();
  EXPECT_EQ(error_text(results[0]), error_text(results[1])) << "refused with the same error";
  pool.stop();
}

}  // namespace
}  // namespace ember
