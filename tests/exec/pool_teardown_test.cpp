// No pipeline thread waits on actors: failing a query touches no pool, the driver thread
// cancels them, and one pipeline thread keeps other partitions flowing while a call is slow.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>

#include "exec/operators/actor_pool_operator.h"
#include "exec_test_kit.h"

namespace ember {
namespace {

using namespace test;

TEST(QueryContext, FailFromAPipelineThreadOnlyFlagsAndWakesTheDriver) {
  TestQuery q({times_ten(1, 10)});
  std::thread::id woken_on;
  q.query.on_cancel([&] { woken_on = std::this_thread::get_id(); });
  std::thread pipeline([&] { q.query.fail(std::make_exception_ptr(std::runtime_error("x"))); });
  std::thread::id pipeline_id = pipeline.get_id();
  pipeline.join();
  EXPECT_TRUE(q.query.cancelled());
  EXPECT_EQ(woken_on, pipeline_id);

  // The pool still serves: fail() did not cancel it.
  std::promise<CallResult> served;
  q.pools[0]->dispatch(numbers(0, 3), [&](CallResult r) { served.set_value(std::move(r)); });
  EXPECT_TRUE(std::holds_alternative<Column>(served.get_future().get()));

  // The driver thread's cancel does, and refused work completes on the driver thread.
  q.query.cancel_pools();
  std::thread::id refused_on;
  q.pools[0]->dispatch(numbers(0, 3), [&](CallResult r) {
    refused_on = std::this_thread::get_id();
    EXPECT_TRUE(std::holds_alternative<std::exception_ptr>(r));
  });
  EXPECT_EQ(refused_on, std::this_thread::get_id());
  q.query.on_cancel(nullptr);
}

/// Opens once partition 1 has reached the sink; a call waiting for it gives up after 30 s.
struct Partition1Done {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool timed_out = false;
};
Partition1Done partition1;

/// x * 10; a call holding row 0 (partition 0's first chunk) waits until partition 1 is done.
struct WaitsForPartition1 {
  explicit WaitsForPartition1(const InitArgs&) {}
  Column operator()(const Batch& in) {
    if (in.column(0).value<int64_t>(0) == 0) {
      std::unique_lock lock(partition1.mu);
      if (!partition1.cv.wait_for(lock, std::chrono::seconds(30), [] { return partition1.done; }))
        partition1.timed_out = true;
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) * 10);
    return Column::from(std::move(out));
  }
};

/// Collects, and tells the waiting call when partition 1 has combined.
class SignallingCollect final : public OutputSink {
 public:
  explicit SignallingCollect(Schema s) : inner_(std::move(s)) {}
  std::unique_ptr<GlobalSinkState> global_state(int n) const override {
    return inner_.global_state(n);
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& g, int p) const override {
    return inner_.local_state(g, p);
  }
  void sink(GlobalSinkState& g, LocalSinkState& l, const Batch& b) const override {
    inner_.sink(g, l, b);
  }
  void combine(GlobalSinkState& g, LocalSinkState& l) const override {
    inner_.combine(g, l);
    if (++combined_ == 1) {  // partition 0 is held by its call: the first to combine is 1
      std::lock_guard lock(partition1.mu);
      partition1.done = true;
      partition1.cv.notify_all();
    }
  }
  Table finalize(GlobalSinkState& g) const override { return inner_.finalize(g); }

 private:
  CollectSink inner_;
  mutable std::atomic<int> combined_{0};
};

TEST(PoolTeardown, OnePipelineThreadKeepsOtherPartitionsFlowingWhileACallIsSlow) {
  partition1.done = false;
  partition1.timed_out = false;
  auto spec = detail::UdfAccess::spec(
      Udf::cls<WaitsForPartition1>("waits").returns(int64()).concurrency(2));
  TestQuery q({spec});
  Schema xy({{"x", int64()}, {"y", int64()}});
  Pipeline p;
  p.add(std::make_shared<ActorPoolOperator>(0, std::vector<int>{0}, std::vector<std::string>{"x"},
                                            xy));
  p.schema = xy;
  TableSource source(x_schema(), {{numbers(0, 10)}, {numbers(10, 10)}}, "test");
  SignallingCollect sink(xy);
  // One pipeline thread: had it parked on partition 0's call, partition 1 could never finish.
  Table t = run_into(q, p, source, sink, 1);
  EXPECT_FALSE(partition1.timed_out);
  EXPECT_EQ(values(t, 0), iota(20));
}

}  // namespace
}  // namespace ember
