// Autoscaling pools (Udf::concurrency(min, max)): grow while batches wait for an actor, shrink
// while actors sit idle, and take added actors' resources only where Growth finds room.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "pool_test_udfs.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

namespace ember {
namespace {

using namespace std::chrono_literals;
using pool_test::counts;
using pool_test::numbers;

/// Dispatches `n` batches of 10 rows and waits for all; true if every result was right.
bool run_batches(ActorPool& pool, int n) {
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  bool right = true;
  for (int b = 0; b < n; ++b) {
    pool.dispatch(numbers(b * 10, 10), [&, b](CallResult r) {
      const auto* c = std::get_if<Column>(&r);
      const bool ok = c && c->size() == 10 && c->value<int64_t>(0) == 2 * (b * 10) + 1;
      std::lock_guard lock(mu);
      right = right && ok;
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock lock(mu);
  return cv.wait_for(lock, 60s, [&] { return done == n; }) && right;
}

/// Waits (bounded) until `pred` holds.
template <class P>
bool eventually(P pred) {
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (!pred() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
  return pred();
}

Udf slow(int min, int max) {
  return Udf::cls<pool_test::Doubler>("slow")
      .returns(int64())
      .init_args({{"sleep_us", int64_t{20000}}})
      .concurrency(min, max);
}

TEST(ActorPoolScaling, GrowsFromOneToMaxUnderASlowUdfAndShrinksBackWhenIdle) {
  counts.reset();
  ActorPool pool(detail::UdfAccess::spec(slow(1, 4)), {});
  pool.set_scaling(2ms, 30ms);
  pool.start();
  EXPECT_EQ(pool.active_actors(), 1);
  EXPECT_EQ(counts.constructed.load(), 1);
  ASSERT_TRUE(run_batches(pool, 120));
  UdfStats s = pool.stats();
  EXPECT_EQ(s.actors, 1);
  EXPECT_EQ(s.peak_actors, 4);
  EXPECT_EQ(s.scale_ups, 3);
  EXPECT_EQ(s.inits, 4);
  EXPECT_EQ(s.batches, 120);
  // Idle now: the added actors are destroyed, the reserved one stays.
  ASSERT_TRUE(eventually([&] { return pool.active_actors() == 1 && counts.destroyed == 3; }));
  s = pool.stats();
  EXPECT_EQ(s.scale_downs, 3);
  EXPECT_EQ(counts.constructed.load(), 4);
  // It grows again when work comes back.
  ASSERT_TRUE(run_batches(pool, 120));
  EXPECT_GT(pool.stats().scale_ups, 3);
  pool.stop();
  EXPECT_EQ(counts.destroyed.load(), counts.constructed.load());
  EXPECT_EQ(counts.wrong_thread.load(), 0);
  EXPECT_EQ(counts.overlapping.load(), 0);
}

TEST(ActorPoolScaling, GrowsOnlyWhereGrowthFindsRoomAndGivesItBack) {
  counts.reset();
  ActorPool pool(detail::UdfAccess::spec(slow(1, 4)), {});
  std::mutex mu;
  std::set<int> held;
  int acquired = 0, released = 0;
  ActorPool::Growth growth;
  growth.acquire = [&](int id) -> std::optional<ActorContext> {
    std::lock_guard lock(mu);
    if (held.size() >= 1) return std::nullopt;  // room for one more actor only
    held.insert(id);
    ++acquired;
    return ActorContext{id, {7}, 1, 0};
  };
  growth.release = [&](int id) {
    std::lock_guard lock(mu);
    EXPECT_EQ(held.erase(id), 1u);
    ++released;
  };
  pool.set_growth(growth);
  pool.set_scaling(2ms, 10s);
  pool.start();
  ASSERT_TRUE(run_batches(pool, 60));
  EXPECT_EQ(pool.stats().peak_actors, 2);
  EXPECT_EQ(pool.stats().scale_ups, 1);
  pool.stop();
  std::lock_guard lock(mu);
  EXPECT_EQ(acquired, 1);
  EXPECT_EQ(released, 1);
  EXPECT_TRUE(held.empty());
}

TEST(ActorPoolScaling, AFixedPoolNeverScales) {
  counts.reset();
  ActorPool pool(detail::UdfAccess::spec(slow(2, 2)), {});
  pool.set_scaling(1ms, 1ms);
  pool.start();
  ASSERT_TRUE(run_batches(pool, 20));
  pool.stop();
  EXPECT_EQ(pool.stats().peak_actors, 2);
  EXPECT_EQ(pool.stats().scale_ups + pool.stats().scale_downs, 0);
  EXPECT_EQ(counts.constructed.load(), 2);
}

TEST(ActorPoolScaling, BatchesWaitingForTheFirstActorsToConstructDoNotGrowThePool) {
  counts.reset();
  pool_test::gate.reset();
  ActorPool pool(detail::UdfAccess::spec(Udf::cls<pool_test::Doubler>("slow_start")
                                             .returns(int64())
                                             .init_args({{"init_gate", int64_t{1}}})
                                             .concurrency(1, 3)),
                 {});
  pool.set_scaling(2ms, 10s);
  pool.launch();
  ASSERT_TRUE(pool_test::gate.wait_entered(1));
  std::atomic<int> done{0};
  for (int i = 0; i < 8; ++i) pool.dispatch(numbers(i, 2), [&](CallResult) { ++done; });
  // The batches wait far longer than grow_after, but for construction, not for a free actor.
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(pool.stats().scale_ups, 0);
  EXPECT_EQ(pool.active_actors(), 1);
  pool_test::gate.open();
  pool.wait_started();
  for (int i = 0; i < 3000 && done.load() < 8; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(done.load(), 8);
  pool.stop();
}

TEST(ActorPoolScaling, BuilderRefusesAMaxBelowTheMin) {
  EXPECT_THROW(slow(3, 2), InvalidArgument);
  EXPECT_THROW(slow(0, 2), InvalidArgument);
  EXPECT_NO_THROW(slow(1, 1));
}

}  // namespace
}  // namespace ember
