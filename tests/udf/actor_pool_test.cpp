// ActorPool: construction once per actor, delivery exactly once with checked results, load
// spreading, failures as UdfError, cancellation and teardown.
#include "udf/actor_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pool_test_udfs.h"
#include "udf/actor.h"

namespace ember {
namespace {

using pool_test::numbers;

using pool_test::counts;
using pool_test::Doubler;
using pool_test::gate;

/// Rows start, start+1, ... in an int64 column "x".
/// Outcomes delivered to `done` callbacks, with a bounded wait for them.
class Outcomes {
 public:
  std::function<void(CallResult)> callback() {
    return [this](CallResult r) {
      std::lock_guard lock(mu_);
      results_.push_back(std::move(r));
      cv_.notify_all();
    };
  }
  bool wait_for(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return results_.size() >= n; });
  }
  std::vector<CallResult> take() {
    std::lock_guard lock(mu_);
    return results_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<CallResult> results_;
};

std::string error_text(const CallResult& r) {
  if (!std::holds_alternative<std::exception_ptr>(r)) return "";
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(r));
  } catch (const UdfError& e) {
    return std::string("UdfError: ") + e.what();
  } catch (const Cancelled& e) {
    return std::string("Cancelled: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
}

std::shared_ptr<const UdfSpec> doubler(int actors, InitArgs args = {}) {
  return detail::UdfAccess::spec(
      Udf::cls<Doubler>("doubler").returns(int64()).concurrency(actors).init_args(args));
}

class ActorPoolTest : public testing::Test {
 protected:
  void SetUp() override {
    counts.reset();
    gate.reset();
  }
};

TEST_F(ActorPoolTest, EveryBatchIsDeliveredOnceWithTheRightResult) {
  for (int actors = 1; actors <= 4; ++actors) {
    counts.reset();
    constexpr int kThreads = 3, kBatches = 150;
    ActorPool pool(doubler(actors, {{"sleep_us", int64_t{20}}}), {});
    pool.start();
    EXPECT_EQ(counts.constructed, actors);

    std::vector<std::atomic<int>> delivered(kThreads * kBatches);
    std::atomic<int> wrong{0}, finished{0};
    std::mutex mu;
    std::condition_variable all_done;
    int64_t total_rows = 0;
    std::vector<std::thread> dispatchers;
    for (int t = 0; t < kThreads; ++t) {
      dispatchers.emplace_back([&, t] {
        for (int i = 0; i < kBatches; ++i) {
          const int64_t start = (t * kBatches + i) * 100, n = 1 + (i * 7 + t) % 50;
          pool.dispatch(numbers(start, n), [&, start, n, slot = t * kBatches + i](CallResult r) {
            delivered[slot]++;
            auto* col = std::get_if<Column>(&r);
            bool ok = col && col->size() == n;
            for (int64_t k = 0; ok && k < n; ++k)
              ok = col->value<int64_t>(k) == 2 * (start + k) + 1;
            if (!ok) wrong++;
            std::lock_guard lock(mu);
            ++finished;
            all_done.notify_all();
          });
        }
      });
      for (int i = 0; i < kBatches; ++i) total_rows += 1 + (i * 7 + t) % 50;
    }
    for (auto& d : dispatchers) d.join();
    {
      std::unique_lock lock(mu);
      ASSERT_TRUE(all_done.wait_for(lock, std::chrono::seconds(60),
                                    [&] { return finished == kThreads * kBatches; }));
    }
    for (auto& d : delivered) EXPECT_EQ(d, 1);
    EXPECT_EQ(wrong, 0);
    for (int a = 0; a < actors; ++a) EXPECT_GT(counts.served[a], 0) << "actor " << a;

    pool.stop();
    EXPECT_EQ(pool.in_flight(), 0);
    EXPECT_EQ(pool.busy_actors(), 0);
    UdfStats s = pool.stats();
    EXPECT_EQ(s.name, "doubler");
    EXPECT_EQ(s.actors, actors);
    EXPECT_EQ(s.inits, actors);
    EXPECT_EQ(s.batches, kThreads * kBatches);
    EXPECT_EQ(s.rows, total_rows);
    EXPECT_GT(s.busy_seconds, 0);
    EXPECT_GE(s.init_seconds, 0);
    EXPECT_EQ(counts.destroyed, actors);
    EXPECT_EQ(counts.wrong_thread, 0);
    EXPECT_EQ(counts.overlapping, 0);
  }
}

TEST_F(ActorPoolTest, ConstructorFailureStopsThePoolAndDestroysTheOthers) {
  ActorPool pool(doubler(3, {{"fail_actor", int64_t{1}}}), {});
  try {
    pool.start();
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    EXPECT_STREQ(e.what(), "udf 'doubler' actor #1 failed to initialise: no dictionary");
  }
  EXPECT_EQ(counts.constructed, 2);
  EXPECT_EQ(counts.destroyed, 2);
  EXPECT_EQ(counts.wrong_thread, 0);
  Outcomes out;
  // The pool failed as a whole: later work completes at once with that failure.
  EXPECT_TRUE(pool.failed());
  pool.dispatch(numbers(0, 3), out.callback());
  ASSERT_TRUE(out.wait_for(1));
  EXPECT_EQ(error_text(out.take()[0]),
            "UdfError: udf 'doubler' actor #1 failed to initialise: no dictionary");
}

TEST_F(ActorPoolTest, LaunchReturnsWhileActorsConstructAndWorkWaitsForThem) {
  ActorPool pool(doubler(2, {{"init_gate", int64_t{1}}}), {});
  pool.launch();
  ASSERT_TRUE(gate.wait_entered(2));  // both constructors are running, and launch() is back
  Outcomes out;
  constexpr int kBatches = 7;
  for (int i = 0; i < kBatches; ++i) pool.dispatch(numbers(10 * i, 3), out.callback());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(out.take().empty());  // no actor is up to serve them yet
  EXPECT_EQ(counts.constructed.load(), 0);
  gate.open();
  pool.wait_started();
  EXPECT_EQ(counts.constructed.load(), 2);
  ASSERT_TRUE(out.wait_for(kBatches));
  std::vector<int64_t> firsts;
  for (const CallResult& r : out.take()) {
    ASSERT_TRUE(std::holds_alternative<Column>(r)) << error_text(r);
    firsts.push_back(std::get<Column>(r).value<int64_t>(0));
  }
  std::sort(firsts.begin(), firsts.end());
  for (int i = 0; i < kBatches; ++i) EXPECT_EQ(firsts[static_cast<size_t>(i)], 20 * i + 1);
  pool.stop();
  EXPECT_EQ(counts.destroyed.load(), 2);
  EXPECT_EQ(pool.stats().inits, 2);
}

TEST_F(ActorPoolTest, AConstructorFailureAfterLaunchFailsTheWaitingWorkNotIsolatesIt) {
  // Under OnError::Null a failed call is the caller's to isolate; a pool that cannot start is
  // not: its work fails with the construction error.
  auto spec = detail::UdfAccess::spec(
      Udf::cls<Doubler>("doubler")
          .returns(int64())
          .concurrency(2)
          .on_error(OnError::Null)
          .init_args({{"init_gate", int64_t{1}}, {"fail_actor", int64_t{0}}}));
  ActorPool pool(spec, {});
  pool.launch();
  ASSERT_TRUE(gate.wait_entered(2));
  Outcomes out;
  for (int i = 0; i < 5; ++i) pool.dispatch(numbers(i, 2), out.callback());
  EXPECT_FALSE(pool.failed());
  gate.open();
  ASSERT_TRUE(out.wait_for(5));
  EXPECT_TRUE(pool.failed());
  int failed = 0;
  for (const CallResult& r : out.take()) {
    // Actor #1 may have served a batch or two before actor #0's failure was known.
    if (std::holds_alternative<Column>(r)) continue;
    ++failed;
    EXPECT_EQ(error_text(r),
              "UdfError: udf 'doubler' actor #0 failed to initialise: no dictionary");
  }
  EXPECT_GE(failed, 1);
  try {
    pool.wait_started();
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    EXPECT_STREQ(e.what(), "udf 'doubler' actor #0 failed to initialise: no dictionary");
  }
  pool.stop();
  EXPECT_EQ(counts.constructed.load(), counts.destroyed.load());
}

TEST_F(ActorPoolTest, WaitStartedReturnsAtOnceBeforeLaunchAndAfterACancelledLaunch) {
  ActorPool idle(doubler(2), {});
  idle.wait_started();  // nothing launched: nothing to wait for
  ActorPool pool(doubler(3, {{"init_gate", int64_t{1}}}), {});
  pool.launch();
  ASSERT_TRUE(gate.wait_entered(3));
  pool.cancel();
  gate.open();
  pool.wait_started();
  pool.stop();
  EXPECT_EQ(counts.constructed.load(), counts.destroyed.load());
}

TEST_F(ActorPoolTest, CallFailureIsAUdfErrorWithNameAndShape) {
  ActorPool pool(doubler(2, {{"mode", std::string("throw")}}), {});
  pool.start();
  Outcomes out;
  pool.dispatch(numbers(0, 3), out.callback());
  ASSERT_TRUE(out.wait_for(1));
  std::string msg = error_text(out.take()[0]);
  EXPECT_EQ(msg.rfind("UdfError: udf 'doubler' failed on 1 arg (x: int64), 3 rows", 0), 0u) << msg;
  EXPECT_NE(msg.find("bad row"), std::string::npos) << msg;
  EXPECT_EQ(pool.stats().batches, 0);
}

TEST_F(ActorPoolTest, AFailedBatchFailsTheQueuedOnesWithoutCallingTheUdf) {
  for (int actors = 1; actors <= 3; ++actors) {
    counts.reset();
    ActorPool pool(doubler(actors, {{"mode", std::string("throw")}}), {});
    Outcomes out;
    constexpr int kBatches = 12;
    // Queued before start: every mailbox and the backlog hold work when the first call fails.
    for (int i = 0; i < kBatches; ++i) pool.dispatch(numbers(i, 3), out.callback());
    pool.start();
    ASSERT_TRUE(out.wait_for(kBatches));
    // Each actor may have been in a call when the first one failed; none starts another, and
    // the batches still queued fail with the same error, not as cancelled.
    int calls = 0;
    for (const auto& served : counts.served) calls += served;
    EXPECT_GE(calls, 1);
    EXPECT_LE(calls, actors) << actors << " actors";
    for (const CallResult& r : out.take()) {
      const std::string msg = error_text(r);
      EXPECT_EQ(msg.rfind("UdfError: udf 'doubler' failed on 1 arg (x: int64), 3 rows", 0), 0u)
          << msg;
    }
    // Each `done` has been called; in_flight() drops once it has also returned.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pool.in_flight() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(pool.in_flight(), 0);
    // Work dispatched later fails at once, on the dispatching thread.
    std::optional<CallResult> late;
    pool.dispatch(numbers(100, 3), [&](CallResult r) { late = std::move(r); });
    ASSERT_TRUE(late.has_value());
    EXPECT_EQ(error_text(*late).rfind("UdfError: udf 'doubler' failed on", 0), 0u);
    calls = 0;
    for (const auto& served : counts.served) calls += served;
    EXPECT_LE(calls, actors);
  }
}

TEST_F(ActorPoolTest, BadResultsAreUdfErrorsSayingExpectedVersusGot) {
  for (const char* mode : {"short", "utf8"}) {
    ActorPool pool(doubler(1, {{"mode", std::string(mode)}}), {});
    pool.start();
    Outcomes out;
    pool.dispatch(numbers(0, 4), out.callback());
    ASSERT_TRUE(out.wait_for(1));
    std::string msg = error_text(out.take()[0]);
    EXPECT_EQ(msg.rfind("UdfError: udf 'doubler'", 0), 0u) << msg;
    EXPECT_NE(msg.find("expected 4 rows of int64"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string(mode) == "short" ? "3 rows" : "utf8"), std::string::npos) << msg;
  }
}

TEST_F(ActorPoolTest, StopCancelsQueuedWorkAndIsIdempotent) {
  ActorPool pool(doubler(1, {{"mode", std::string("gate")}}), {});
  pool.start();
  Outcomes out;
  constexpr int kBatches = 6;
  for (int i = 0; i < kBatches; ++i) pool.dispatch(numbers(i * 10, 2), out.callback());
  ASSERT_TRUE(gate.wait_entered(1));  // one call runs, the rest wait
  EXPECT_EQ(pool.busy_actors(), 1);
  EXPECT_EQ(pool.in_flight(), kBatches);

  std::thread stopper([&] { pool.stop(); });
  std::thread second_stopper([&] { pool.stop(); });
  ASSERT_TRUE(out.wait_for(kBatches - 1));  // queued ones are cancelled before the running ends
  gate.open();
  stopper.join();
  second_stopper.join();
  pool.stop();

  auto results = out.take();
  ASSERT_EQ(results.size(), static_cast<size_t>(kBatches));
  int cancelled = 0, columns = 0;
  for (const CallResult& r : results) {
    if (std::holds_alternative<Column>(r)) ++columns;
    if (error_text(r).rfind("Cancelled: ", 0) == 0) ++cancelled;
  }
  EXPECT_EQ(columns, 1);
  EXPECT_EQ(cancelled, kBatches - 1);
  EXPECT_EQ(pool.in_flight(), 0);
  EXPECT_EQ(counts.constructed, 1);
  EXPECT_EQ(counts.destroyed, 1);
}

TEST_F(ActorPoolTest, CancelReturnsAtOnceAndStopWaitsForTheRunningCall) {
  ActorPool pool(doubler(1, {{"mode", std::string("gate")}}), {});
  pool.start();
  Outcomes out;
  for (int i = 0; i < 4; ++i) pool.dispatch(numbers(i * 10, 2), out.callback());
  ASSERT_TRUE(gate.wait_entered(1));
  pool.cancel();  // a call is still running behind the gate: this must not wait for it
  pool.cancel();
  ASSERT_TRUE(out.wait_for(3));
  std::optional<CallResult> late;
  pool.dispatch(numbers(100, 2), [&](CallResult r) { late = std::move(r); });
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(error_text(*late).rfind("Cancelled: ", 0), 0u) << error_text(*late);
  EXPECT_THROW(pool.start(), Cancelled);
  gate.open();
  pool.stop();
  auto results = out.take();
  ASSERT_EQ(results.size(), 4u);
  int columns = 0;
  for (const CallResult& r : results) columns += std::holds_alternative<Column>(r) ? 1 : 0;
  EXPECT_EQ(columns, 1) << "the running call finished and delivered";
  EXPECT_EQ(counts.served[0], 1);
  EXPECT_EQ(counts.destroyed, 1);
}

TEST_F(ActorPoolTest, WorkDispatchedBeforeStartRunsAfterIt) {
  ActorPool pool(doubler(2), {});
  Outcomes out;
  for (int i = 0; i < 5; ++i) pool.dispatch(numbers(i, 1), out.callback());
  EXPECT_EQ(pool.in_flight(), 5);
  pool.start();
  ASSERT_TRUE(out.wait_for(5));
  for (const CallResult& r : out.take()) EXPECT_TRUE(std::holds_alternative<Column>(r));
}

TEST_F(ActorPoolTest, DoneMayDispatchFollowUpWork) {
  ActorPool pool(doubler(2), {});
  pool.start();
  Outcomes out;
  std::function<void(CallResult)> chain = [&](CallResult r) {
    auto* c = std::get_if<Column>(&r);
    if (c && c->value<int64_t>(0) < 1000) {
      pool.dispatch(numbers(c->value<int64_t>(0), 1), chain);
    } else {
      out.callback()(std::move(r));
    }
  };
  pool.dispatch(numbers(0, 1), chain);  // 0 -> 1 -> 3 -> 7 -> ... -> 1023
  ASSERT_TRUE(out.wait_for(1));
  EXPECT_EQ(std::get<Column>(out.take()[0]).value<int64_t>(0), 1023);
  EXPECT_EQ(pool.stats().batches, 10);
}

TEST_F(ActorPoolTest, ContextsFromAdmissionReachTheConstructors) {
  std::vector<ActorContext> contexts{{5, {1}, 2, 0}, {7, {3}, 2, 0}};
  ActorPool pool(doubler(2), contexts);
  pool.start();
  EXPECT_EQ(pool.num_actors(), 2);
  Outcomes out;
  for (int i = 0; i < 20; ++i) pool.dispatch(numbers(i, 1), out.callback());
  ASSERT_TRUE(out.wait_for(20));
  pool.stop();
  EXPECT_EQ(counts.served[5] + counts.served[7], 20);
}

TEST_F(ActorPoolTest, KeptToItsOwnActorsItServesNoOtherUntilReleased) {
  // Actor 0 is the pool's own; 1 and 2 are made by makers (as actors on other ranks are).
  auto spec = doubler(3, {{"sleep_us", int64_t{200}}});
  std::vector<ActorContext> contexts{{0, {}, 1, 0}, {1, {}, 1, 0}, {2, {}, 1, 0}};
  std::vector<ActorMaker> makers{nullptr};
  for (int a = 1; a <= 2; ++a)
    makers.push_back([spec, ctx = contexts[static_cast<size_t>(a)]](std::stop_token) {
      return make_thread_actor(spec, ctx);
    });
  ActorPool pool(spec, contexts, makers);
  pool.start();
  pool.keep_to_own_actors(true);
  Outcomes kept;
  for (int i = 0; i < 30; ++i) pool.dispatch(numbers(i, 1), kept.callback());
  ASSERT_TRUE(kept.wait_for(30));
  for (const CallResult& r : kept.take()) EXPECT_TRUE(std::holds_alternative<Column>(r));
  EXPECT_EQ(counts.served[0], 30);
  EXPECT_EQ(counts.served[1] + counts.served[2], 0);
  // Released: every actor takes work again, least-loaded.
  pool.keep_to_own_actors(false);
  Outcomes all;
  for (int i = 0; i < 30; ++i) pool.dispatch(numbers(i, 1), all.callback());
  ASSERT_TRUE(all.wait_for(30));
  EXPECT_GT(counts.served[1] + counts.served[2], 0);
  pool.stop();
}

/// x after 20 ms, but a batch starting at 0 waits (at most 10 s) until every other batch has
/// been served: its call runs long while the pool's other work goes on.
std::atomic<int> others_served{0};
std::atomic<bool> long_call_saw_all{false};
struct LongFirst {
  explicit LongFirst(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    if (in.column(0).value<int64_t>(0) != 0) {
      // Long enough that both actors are busy while the batches are dispatched.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++others_served;
      return in.column(0);
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (others_served < 7 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    long_call_saw_all = others_served == 7;
    return in.column(0);
  }
};
EMBER_REGISTER_UDF(LongFirst);

TEST_F(ActorPoolTest, AnIdleActorTakesABatchQueuedBehindALongCall) {
  // Two actors, each handed two batches (one running, one queued) and the rest waiting in the
  // pool: the actor running the long call keeps a batch queued behind it, which the other
  // actor, once it has run out of work, takes over.
  others_served = 0;
  long_call_saw_all = false;
  ActorPool pool(
      detail::UdfAccess::spec(Udf::cls<LongFirst>("long_first").returns(int64()).concurrency(2)),
      {});
  pool.start();
  Outcomes out;
  for (int i = 0; i < 8; ++i) pool.dispatch(numbers(i * 10, 10), out.callback());
  ASSERT_TRUE(out.wait_for(8));
  for (const CallResult& r : out.take()) EXPECT_TRUE(std::holds_alternative<Column>(r));
  EXPECT_TRUE(long_call_saw_all) << "a batch waited for the long call to end";
  pool.stop();
}

TEST_F(ActorPoolTest, ASpareTakesWorkOnlyLentAndOnlyWhileTheOthersAreBusy) {
  // Actor 1 is a spare (as a rank's proxies to other ranks' idle actors are).
  auto spec = doubler(2, {{"sleep_us", int64_t{2000}}});
  ActorPool pool(spec, {{0, {}, 1, 0}, {1, {}, 1, 0}});
  pool.set_spares({1});
  pool.start();
  Outcomes unlent;
  for (int i = 0; i < 10; ++i) pool.dispatch(numbers(i, 1), unlent.callback());
  ASSERT_TRUE(unlent.wait_for(10));
  EXPECT_EQ(counts.served[0], 10);
  EXPECT_EQ(counts.served[1], 0);
  // Lent: local first, so a lone batch still goes to the idle own actor (idle once its last
  // batch has been delivered and counted off, which follows the outcome)...
  pool.lend_spares();
  for (int i = 0; i < 3000 && pool.in_flight() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(pool.in_flight(), 0);
  Outcomes lone;
  pool.dispatch(numbers(0, 1), lone.callback());
  ASSERT_TRUE(lone.wait_for(1));
  EXPECT_EQ(counts.served[0], 11);
  EXPECT_EQ(counts.served[1], 0);
  // ...and a burst overflows to the spare once the own actor is busy.
  Outcomes burst;
  for (int i = 0; i < 20; ++i) pool.dispatch(numbers(i, 1), burst.callback());
  ASSERT_TRUE(burst.wait_for(20));
  for (const CallResult& r : burst.take()) EXPECT_TRUE(std::holds_alternative<Column>(r));
  EXPECT_GT(counts.served[1], 0);
  EXPECT_EQ(pool.batches_lent(), counts.served[1]);
  // Another rank's batches (the pool service) are not counted as this pool's lent ones.
  Outcomes foreign;
  for (int i = 0; i < 20; ++i) pool.dispatch_foreign(numbers(i, 1), foreign.callback());
  ASSERT_TRUE(foreign.wait_for(20));
  const int64_t lent = pool.batches_lent();
  EXPECT_LE(lent, counts.served[1]);
  EXPECT_EQ(counts.served[0] + counts.served[1], 51);
  // keep_to_own_actors takes the loan back: the spare serves nothing more.
  pool.keep_to_own_actors(false);
  const int spare_served = counts.served[1];
  Outcomes after;
  for (int i = 0; i < 20; ++i) pool.dispatch(numbers(i, 1), after.callback());
  ASSERT_TRUE(after.wait_for(20));
  EXPECT_EQ(counts.served[1], spare_served);
  EXPECT_EQ(pool.batches_lent(), lent);
  pool.stop();
}

TEST_F(ActorPoolTest, SparesAreLentByHost) {
  // A kept pool's maker-made actors are its spares; these run here (host -1), not on rank 3.
  auto spec = doubler(2, {{"sleep_us", int64_t{2000}}});
  std::vector<ActorContext> contexts{{0, {}, 1, 0}, {1, {}, 1, 0}};
  std::vector<ActorMaker> makers{
      nullptr, [spec, ctx = contexts[1]](std::stop_token) { return make_thread_actor(spec, ctx); }};
  ActorPool pool(spec, contexts, makers);
  pool.start();
  pool.keep_to_own_actors(true);
  pool.lend_spares(3);
  Outcomes other_host;
  for (int i = 0; i < 20; ++i) pool.dispatch(numbers(i, 1), other_host.callback());
  ASSERT_TRUE(other_host.wait_for(20));
  EXPECT_EQ(counts.served[1], 0);
  pool.lend_spares(-1);
  Outcomes this_host;
  for (int i = 0; i < 20; ++i) pool.dispatch(numbers(i, 1), this_host.callback());
  ASSERT_TRUE(this_host.wait_for(20));
  EXPECT_GT(counts.served[1], 0);
  EXPECT_EQ(pool.batches_lent(), counts.served[1]);
  pool.stop();
}

TEST_F(ActorPoolTest, APoolWithoutOwnActorsIsNotKeptToThem) {
  // Every actor made by a maker (a pool whose actors all live elsewhere): still served.
  auto spec = doubler(2);
  std::vector<ActorContext> contexts{{0, {}, 1, 0}, {1, {}, 1, 0}};
  std::vector<ActorMaker> makers;
  for (const ActorContext& ctx : contexts)
    makers.push_back([spec, ctx](std::stop_token) { return make_thread_actor(spec, ctx); });
  ActorPool pool(spec, contexts, makers);
  pool.start();
  pool.keep_to_own_actors(true);
  Outcomes out;
  for (int i = 0; i < 10; ++i) pool.dispatch(numbers(i, 1), out.callback());
  ASSERT_TRUE(out.wait_for(10));
  EXPECT_EQ(counts.served[0] + counts.served[1], 10);
  pool.stop();
}

TEST_F(ActorPoolTest, DestroyingARunningPoolStopsIt) {
  {
    ActorPool pool(doubler(3), {});
    pool.start();
    Outcomes out;
    pool.dispatch(numbers(0, 5), out.callback());
    ASSERT_TRUE(out.wait_for(1));
  }
  EXPECT_EQ(counts.constructed, 3);
  EXPECT_EQ(counts.destroyed, 3);
}

}  // namespace
}  // namespace ember
