// A sink that cannot take a batch says so (Sink::ready) and wakes the partition later: the
// partition's thread goes on with other partitions meanwhile, no row is lost or reordered, and
// a wake-up that comes after the pipeline ended does nothing.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <vector>

#include "exec/operators/actor_pool_operator.h"
#include "exec_test_kit.h"

namespace ember::test {
namespace {

/// Collects every row, but partition 0 may not hand it a batch until partition 1 has: until
/// then ready() refuses partition 0 and keeps its wake-up, which partition 1's first batch
/// calls. With one pipeline thread, a partition that parked its thread here would never let
/// partition 1 run.
class WaitsForPartitionOne final : public OutputSink {
 public:
  struct Global final : GlobalSinkState {
    std::mutex mu;
    bool one_went = false;                 // guarded by mu
    std::function<void()> waiting;         // guarded by mu
    std::function<void()> kept;            // guarded by mu: the last wake-up handed out
    int refused = 0;                       // guarded by mu
    std::vector<int> partitions_in_order;  // guarded by mu: a batch's partition, as sunk
    std::unique_ptr<GlobalSinkState> rows;
  };
  struct Local final : LocalSinkState {
    int partition = 0;
    std::unique_ptr<LocalSinkState> rows;
  };

  std::unique_ptr<GlobalSinkState> global_state(int n) const override {
    auto g = std::make_unique<Global>();
    g->rows = collect_.global_state(n);
    return g;
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global, int p) const override {
    auto l = std::make_unique<Local>();
    l->partition = p;
    l->rows = collect_.local_state(*global.as<Global>().rows, p);
    return l;
  }
  bool ready(GlobalSinkState& global, LocalSinkState& local,
             const std::function<void()>& wake) const override {
    auto& g = global.as<Global>();
    std::lock_guard lock(g.mu);
    g.kept = wake;
    if (local.as<Local>().partition != 0 || g.one_went) return true;
    ++g.refused;
    g.waiting = wake;
    return false;
  }
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override {
    auto& g = global.as<Global>();
    std::function<void()> wake;
    {
      std::lock_guard lock(g.mu);
      g.partitions_in_order.push_back(local.as<Local>().partition);
      if (local.as<Local>().partition == 1 && !g.one_went) {
        g.one_went = true;
        wake.swap(g.waiting);
      }
    }
    collect_.sink(*g.rows, *local.as<Local>().rows, batch);
    if (wake) wake();
  }
  void combine(GlobalSinkState& global, LocalSinkState& local) const override {
    collect_.combine(*global.as<Global>().rows, *local.as<Local>().rows);
  }
  Table finalize(GlobalSinkState& global) const override {
    return collect_.finalize(*global.as<Global>().rows);
  }

 private:
  CollectSink collect_{x_schema()};
};

TEST(BlockedSink, APartitionTheSinkRefusesFreesItsThreadAndLosesNoRow) {
  // Partition 0 (rows 0..9999) comes first, on the only thread; the sink refuses it until
  // partition 1 (rows 10000..19999) has handed over a batch.
  std::vector<std::vector<Batch>> parts(2);
  for (int p = 0; p < 2; ++p)
    for (int b = 0; b < 10; ++b) parts[size_t(p)].push_back(numbers(p * 10000 + b * 1000, 1000));
  TableSource source(x_schema(), parts, "test");
  Pipeline pipeline;
  pipeline.schema = x_schema();
  WaitsForPartitionOne sink;
  TestQuery q;
  auto state = sink.global_state(2);
  run_pipeline(q.query, pipeline, source, sink, *state, /*threads=*/1);
  ASSERT_EQ(q.query.error(), nullptr);
  auto& g = state->as<WaitsForPartitionOne::Global>();
  EXPECT_GE(g.refused, 1);
  ASSERT_FALSE(g.partitions_in_order.empty());
  EXPECT_EQ(g.partitions_in_order.front(), 1);  // partition 0 waited for partition 1
  // Every row once, each partition's in order, the table in partition order.
  EXPECT_EQ(values(sink.finalize(*state)), iota(20000));
  // A wake-up called after the pipeline ended reaches nobody (and must not crash).
  std::function<void()> late;
  {
    std::lock_guard lock(g.mu);
    late = g.kept;
  }
  ASSERT_TRUE(late);
  late();
}

/// Collects every row, but refuses each batch the first time it is offered; a helper thread
/// calls the kept wake-ups a moment later. The last batches come out of an actor stage after the
/// partition's input has ended, so the partition must still end once the sink takes them.
class RefusesEachBatchOnce final : public OutputSink {
 public:
  struct Global final : GlobalSinkState {
    std::mutex mu;
    std::vector<std::function<void()>> waiting;  // guarded by mu
    int refused = 0;                             // guarded by mu
    std::unique_ptr<GlobalSinkState> rows;
  };
  struct Local final : LocalSinkState {
    bool asked = false;
    std::unique_ptr<LocalSinkState> rows;
  };
  std::unique_ptr<GlobalSinkState> global_state(int n) const override {
    auto g = std::make_unique<Global>();
    g->rows = collect_.global_state(n);
    return g;
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global, int p) const override {
    auto l = std::make_unique<Local>();
    l->rows = collect_.local_state(*global.as<Global>().rows, p);
    return l;
  }
  bool ready(GlobalSinkState& global, LocalSinkState& local,
             const std::function<void()>& wake) const override {
    auto& l = local.as<Local>();
    if (l.asked) {
      l.asked = false;
      return true;
    }
    l.asked = true;
    auto& g = global.as<Global>();
    std::lock_guard lock(g.mu);
    ++g.refused;
    g.waiting.push_back(wake);
    return false;
  }
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override {
    collect_.sink(*global.as<Global>().rows, *local.as<Local>().rows, batch);
  }
  void combine(GlobalSinkState& global, LocalSinkState& local) const override {
    collect_.combine(*global.as<Global>().rows, *local.as<Local>().rows);
  }
  Table finalize(GlobalSinkState& global) const override {
    return collect_.finalize(*global.as<Global>().rows);
  }

 private:
  CollectSink collect_{Schema({{"x", int64()}, {"y", int64()}})};
};

TEST(BlockedSink, RowsTheSinkRefusedAfterTheInputEndedStillEndThePartition) {
  TestQuery q({times_ten(2, 100)});
  const Schema xy({{"x", int64()}, {"y", int64()}});
  Pipeline pipeline;
  pipeline.add(std::make_shared<ActorPoolOperator>(0, std::vector<int>{0},
                                                   std::vector<std::string>{"x"}, xy));
  pipeline.schema = xy;
  std::vector<std::vector<Batch>> parts(3);
  for (int p = 0; p < 3; ++p)
    for (int b = 0; b < 5; ++b) parts[size_t(p)].push_back(numbers(p * 500 + b * 100, 100));
  TableSource source(x_schema(), parts, "test");
  RefusesEachBatchOnce sink;
  auto state = sink.global_state(3);
  auto& g = state->as<RefusesEachBatchOnce::Global>();
  std::atomic<bool> done{false};
  std::thread waker([&] {
    while (!done) {
      std::vector<std::function<void()>> wake;
      {
        std::lock_guard lock(g.mu);
        wake.swap(g.waiting);
      }
      for (auto& w : wake) w();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  run_pipeline(q.query, pipeline, source, sink, *state, 2);
  done = true;
  waker.join();
  ASSERT_EQ(q.query.error(), nullptr);
  {
    std::lock_guard lock(g.mu);
    EXPECT_GE(g.refused, 15);  // every batch was refused once
  }
  const Table t = sink.finalize(*state);
  EXPECT_EQ(values(t, 0), iota(1500));
  std::vector<int64_t> tens;
  for (int64_t x : iota(1500)) tens.push_back(10 * x);
  EXPECT_EQ(values(t, 1), tens);
}

}  // namespace
}  // namespace ember::test
