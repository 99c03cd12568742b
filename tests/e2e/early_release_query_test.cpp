// A pool's resources go back when its input ends, for other queries to use at once; a query
// that does not fit may wait for them (RunOptions::wait_for_resources).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ember/ember.h"
#include "resources/resource_pool.h"

using namespace ember;
using namespace std::chrono_literals;

namespace {

/// A one-shot event that tests wait on with a generous bound (a bug fails, never hangs).
class Event {
 public:
  void set() {
    std::lock_guard lock(mu_);
    set_ = true;
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds bound = 60s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return set_; });
  }
  bool is_set() {
    std::lock_guard lock(mu_);
    return set_;
  }
  void reset() {
    std::lock_guard lock(mu_);
    set_ = false;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

Event a_gpu_up, a_gpu_gone, b_gpu_up, a_cpu_saw_b, release_a;
std::atomic<bool> a_gpu_alive{false};

/// Query A's GPU stage: marks its life.
class GpuStageA {
 public:
  explicit GpuStageA(const InitArgs&) {
    a_gpu_alive = true;
    a_gpu_up.set();
  }
  ~GpuStageA() {
    a_gpu_alive = false;
    a_gpu_gone.set();
  }
  Column operator()(const Batch& in) { return in.column(0); }
};

/// Query A's later CPU stage: its first call waits until query B's GPU actor exists, which
/// only early release makes possible while this stage runs.
class CpuStageA {
 public:
  explicit CpuStageA(const InitArgs&) {}
  Column operator()(const Batch& in) {
    if (!waited_.exchange(true) && b_gpu_up.wait(30s)) a_cpu_saw_b.set();
    return in.column(0);
  }

 private:
  std::atomic<bool> waited_{false};
};

/// Query B's GPU stage, on the device A's GPU stage held.
class GpuStageB {
 public:
  GpuStageB(const InitArgs&, const ActorContext& ctx) : gpus_(ctx.gpu_ids) {
    b_saw_a_gone = !a_gpu_alive;
    b_gpu_up.set();
  }
  Column operator()(const Batch& in) { return in.column(0); }
  inline static std::atomic<bool> b_saw_a_gone{false};

 private:
  std::vector<int> gpus_;
};

/// Holds its query until the test says so.
class Holder {
 public:
  explicit Holder(const InitArgs&) {}
  Column operator()(const Batch& in) {
    release_a.wait();
    return in.column(0);
  }
};

RunOptions machine(int gpus, std::chrono::milliseconds wait = 0ms) {
  RunOptions o;
  o.resources = Resources{4, gpus, int64_t{4} << 30};
  o.wait_for_resources = wait;
  return o;
}

}  // namespace

TEST(EarlyRelease, AFinishedGpuStageIsUsedByAnotherQueryWhileItsQueryGoesOn) {
  for (Event* e : {&a_gpu_up, &a_gpu_gone, &b_gpu_up, &a_cpu_saw_b}) e->reset();
  Udf gpu_a = Udf::cls<GpuStageA>("embed_a").returns(int64()).num_gpus(1).batch_size(100);
  Udf cpu_a = Udf::cls<CpuStageA>("score_a").returns(int64()).num_cpus(1).batch_size(100);
  Udf gpu_b = Udf::cls<GpuStageB>("embed_b").returns(int64()).num_gpus(1);
  // A: GPU stage, then a sort (the GPU stage's input ends there), then a CPU stage.
  DataFrame a = range(1000, 4)
                    .with_column("e", gpu_a(col("id")))
                    .sort({SortKey{col("id")}})
                    .with_column("s", cpu_a(col("e")));
  std::thread b_query;
  Table b_result;
  std::thread a_query([&] {
    Table t = a.collect(machine(1));
    EXPECT_EQ(t.num_rows(), 1000);
  });
  ASSERT_TRUE(a_gpu_up.wait());
  // B asks for the one GPU while A holds it, and waits for it rather than failing.
  b_query = std::thread(
      [&] { b_result = range(10).with_column("e", gpu_b(col("id"))).collect(machine(1, 60s)); });
  a_query.join();
  b_query.join();
  EXPECT_EQ(b_result.num_rows(), 10);
  // B's GPU actor was constructed after A's had been destroyed, and while A's CPU stage ran.
  EXPECT_TRUE(GpuStageB::b_saw_a_gone);
  EXPECT_TRUE(a_cpu_saw_b.is_set());
}

TEST(WaitForResources, AQueryWaitsForAnotherToFinishThenRuns) {
  release_a.reset();
  Udf hold = Udf::cls<Holder>("hold").returns(int64()).num_gpus(1);
  Udf next = Udf::cls<GpuStageA>("next").returns(int64()).num_gpus(1);
  std::thread first([&] { range(10).with_column("h", hold(col("id"))).collect(machine(1)); });
  auto pool = ResourcePool::for_run(machine(1).resources);
  // Without waiting, the second query is refused while the first holds the GPU.
  for (int i = 0;
       i < 2'000'000 &&
       pool->describe().find("held by running queries: 0 CPUs, 0 B, 1 GPU") == std::string::npos;
       ++i)
    std::this_thread::yield();
  EXPECT_THROW(range(10).with_column("n", next(col("id"))).collect(machine(1)), ResourceError);
  std::atomic<bool> done{false};
  std::thread second([&] {
    Table t = range(10).with_column("n", next(col("id"))).collect(machine(1, 60s));
    EXPECT_EQ(t.num_rows(), 10);
    done = true;
  });
  for (int i = 0; i < 2'000'000 && pool->waiting() != 1; ++i) std::this_thread::yield();
  EXPECT_EQ(pool->waiting(), 1);
  EXPECT_FALSE(done);
  release_a.set();
  first.join();
  second.join();
  EXPECT_TRUE(done);
}

TEST(WaitForResources, AQueryLargerThanTheMachineFailsAtOnce) {
  Udf big = Udf::cls<Holder>("big").returns(int64()).num_gpus(1).concurrency(3);
  try {
    range(10).with_column("b", big(col("id"))).collect(machine(2, std::chrono::hours(1)));
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("big"), std::string::npos) << m;
    EXPECT_NE(m.find("3 GPUs"), std::string::npos) << m;
    EXPECT_NE(m.find("2 GPUs exist"), std::string::npos) << m;
  }
}
