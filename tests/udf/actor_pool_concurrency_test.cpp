// max_concurrency: one actor serves k calls at once, constructed once; dispatch hands each
// actor up to 2 x k batches.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "pool_test_udfs.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

namespace ember {
namespace {

using pool_test::numbers;

/// Per actor: constructions, calls running now and their peak.
struct Overlap {
  std::array<std::atomic<int>, 4> constructed{}, running{}, peak{};
  void reset() {
    for (auto* a : {&constructed, &running, &peak})
      for (auto& x : *a) x = 0;
  }
};
Overlap overlap;

/// Returns x + 1 after sleeping 50 ms; records how many of its actor's calls overlap.
class PeakRecorder {
 public:
  PeakRecorder(const InitArgs&, const ActorContext& ctx) : id_(static_cast<size_t>(ctx.actor_id)) {
    overlap.constructed[id_]++;
  }
  Column operator()(const Batch& in) {
    const int now = ++overlap.running[id_];
    int seen = overlap.peak[id_].load();
    while (now > seen && !overlap.peak[id_].compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    --overlap.running[id_];
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) + 1);
    return Column::from(std::move(out));
  }

 private:
  size_t id_;
};

TEST(ActorPoolConcurrency, EachActorServesMaxConcurrencyCallsAtOnce) {
  overlap.reset();
  Udf u = Udf::cls<PeakRecorder>("peak").returns(int64()).concurrency(2).max_concurrency(4);
  ActorPool pool(detail::UdfAccess::spec(u), {});
  pool.start();
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  bool all_right = true;
  constexpr int kBatches = 32;
  for (int b = 0; b < kBatches; ++b) {
    pool.dispatch(numbers(b * 10, 10), [&, b](CallResult r) {
      const auto* c = std::get_if<Column>(&r);
      const bool right = c && c->size() == 10 && c->value<int64_t>(0) == b * 10 + 1;
      std::lock_guard lock(mu);
      all_right = all_right && right;
      ++done;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return done == kBatches; }));
    EXPECT_TRUE(all_right);
  }
  pool.stop();
  for (size_t a = 0; a < 2; ++a) {
    EXPECT_EQ(overlap.peak[a].load(), 4) << "actor " << a;
    EXPECT_EQ(overlap.constructed[a].load(), 1) << "actor " << a;
  }
  EXPECT_EQ(pool.stats().inits, 2);
  EXPECT_EQ(pool.stats().batches, kBatches);
}

TEST(ActorPoolConcurrency, OneCallAtATimeByDefault) {
  overlap.reset();
  Udf u = Udf::cls<PeakRecorder>("peak").returns(int64());
  ActorPool pool(detail::UdfAccess::spec(u), {});
  pool.start();
  std::atomic<int> served{0};
  for (int b = 0; b < 6; ++b)
    pool.dispatch(numbers(b, 1),
                  [&](CallResult r) { served += std::holds_alternative<Column>(r); });
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (served.load() < 6 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  pool.stop();
  EXPECT_EQ(served.load(), 6);
  EXPECT_EQ(overlap.peak[0].load(), 1);
}

}  // namespace
}  // namespace ember
