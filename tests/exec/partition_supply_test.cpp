// A pipeline run takes its partitions from a supply. One fed from another thread (as a worker
// rank's is, by rank 0 over the network) says Later and wakes the run when more come: every
// partition runs once, for any number of pipeline threads, and a run that is cancelled while
// it waits for one ends without it.
#include "exec/partition_supply.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>

#include "exec_test_kit.h"

namespace ember {
namespace {

using namespace test;

/// Hands out the partitions feed() adds, in that order: Later while none is at hand, and the
/// waker once one comes (or the feeder says none will).
class FedSupply final : public PartitionSupply {
 public:
  SuppliedPartition take() override {
    std::lock_guard lock(mu_);
    ++takes_;
    changed_.notify_all();
    if (!ready_.empty()) {
      const int p = ready_.front();
      ready_.pop_front();
      return {SuppliedPartition::Kind::Partition, p};
    }
    if (last_) return {};
    waiting_ = true;
    return {SuppliedPartition::Kind::Later, -1};
  }
  void set_waker(std::function<void()> wake) override {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !waking_; });
    wake_ = std::move(wake);
  }

  /// The feeder's thread: `partitions` join those at hand; `last`: no more will come.
  void feed(std::vector<int> partitions, bool last) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      ready_.insert(ready_.end(), partitions.begin(), partitions.end());
      last_ = last_ || last;
      if (waiting_ && (!ready_.empty() || last_)) {
        waiting_ = false;
        wake = wake_;
        waking_ = static_cast<bool>(wake);
        wakes_ += waking_ ? 1 : 0;
      }
    }
    if (!wake) return;
    wake();
    std::lock_guard lock(mu_);
    waking_ = false;
    changed_.notify_all();
  }
  /// Waits until take() has been called `n` times (at most 30 s); false if it never was.
  bool wait_for_takes(int n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return takes_ >= n; });
  }
  int wakes() {
    std::lock_guard lock(mu_);
    return wakes_;
  }
  bool has_waker() {
    std::lock_guard lock(mu_);
    return static_cast<bool>(wake_);
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<int> ready_;  // guarded by mu_
  bool last_ = false;      // guarded by mu_
  bool waiting_ = false;   // guarded by mu_
  bool waking_ = false;    // guarded by mu_
  int takes_ = 0;          // guarded by mu_
  int wakes_ = 0;          // guarded by mu_
  std::function<void()> wake_;
};

/// `n` partitions of 5 rows each: partition p holds 5p .. 5p + 4.
TableSource fives(int n) {
  std::vector<std::vector<Batch>> partitions;
  for (int p = 0; p < n; ++p) partitions.push_back({numbers(5 * p, 5)});
  return TableSource(x_schema(), std::move(partitions), "test");
}

Pipeline plain() {
  Pipeline p;
  p.schema = x_schema();
  return p;
}

TEST(PartitionSupply, FixedSupplyGivesItsListThenNothing) {
  FixedPartitionSupply listed(std::vector<int>{4, 7});
  EXPECT_EQ(listed.take().partition, 4);
  EXPECT_EQ(listed.take().partition, 7);
  EXPECT_EQ(listed.take().kind, SuppliedPartition::Kind::Exhausted);
  EXPECT_EQ(listed.take().kind, SuppliedPartition::Kind::Exhausted);
  FixedPartitionSupply counted(2);
  EXPECT_EQ(counted.count(), 2);
  EXPECT_EQ(counted.take().partition, 0);
  EXPECT_EQ(counted.take().partition, 1);
  EXPECT_EQ(counted.take().kind, SuppliedPartition::Kind::Exhausted);
}

TEST(PartitionSupply, PartitionsFedFromAnotherThreadEachRunOnce) {
  constexpr int kPartitions = 24;
  for (int threads = 1; threads <= 4; ++threads) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    TestQuery q;
    TableSource source = fives(kPartitions);
    Pipeline p = plain();
    CollectSink sink(x_schema());
    auto state = sink.global_state(kPartitions);
    FedSupply supply;
    // One or two at a time, a little apart: the run says Later between them.
    std::thread feeder([&] {
      for (int next = 0; next < kPartitions;) {
        std::vector<int> some{next++};
        if (next % 3 == 0 && next < kPartitions) some.push_back(next++);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        supply.feed(std::move(some), next == kPartitions);
      }
    });
    run_pipeline(q.query, p, source, sink, *state, threads, supply);
    feeder.join();
    ASSERT_EQ(q.query.error(), nullptr);
    EXPECT_EQ(values(sink.finalize(*state)), iota(5 * kPartitions));  // each row once, in order
    EXPECT_EQ(q.query.partitions_done.load(), kPartitions);
    EXPECT_EQ(q.query.partitions_total.load(), 0);  // the caller counts a supply's total
    EXPECT_GT(supply.wakes(), 0);
    EXPECT_FALSE(supply.has_waker());  // the run took it back before it returned
  }
}

TEST(PartitionSupply, CancelledRunEndsWhileItsSupplyOwesAPartition) {
  for (int threads = 1; threads <= 2; ++threads) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    TestQuery q;
    TableSource source = fives(4);
    Pipeline p = plain();
    CollectSink sink(x_schema());
    auto state = sink.global_state(4);
    FedSupply supply;
    supply.feed({0, 1}, false);
    std::thread canceller([&] {
      // Two partitions taken, then a Later: the run waits for a partition that never comes.
      EXPECT_TRUE(supply.wait_for_takes(3));
      q.query.fail(std::make_exception_ptr(std::runtime_error("stopped")));
    });
    run_pipeline(q.query, p, source, sink, *state, threads, supply);
    canceller.join();
    EXPECT_NE(q.query.error(), nullptr);
    EXPECT_FALSE(supply.has_waker());
    supply.feed({2, 3}, true);  // after the run: nobody to wake, nothing runs
    EXPECT_EQ(supply.wakes(), 0);
  }
}

/// A table's partitions, with a fetch ahead that only records what was asked: which partitions
/// were prefetched, which were opened with their own prefetch, and the most held at once.
class PrefetchingSource final : public Source {
 public:
  explicit PrefetchingSource(int n) : table_(fives(n)) {}
  struct Ahead final : Prefetched {
    Ahead(int p, PrefetchingSource& s) : partition(p), source(s) { ++source.live_; }
    ~Ahead() override { --source.live_; }
    int partition;
    PrefetchingSource& source;
  };
  const Schema& schema() const override { return table_.schema(); }
  int num_partitions() const override { return table_.num_partitions(); }
  std::unique_ptr<BatchReader> open(int p, int64_t rows) const override {
    return table_.open(p, rows);
  }
  std::string describe() const override { return "prefetching"; }
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }
  std::shared_ptr<Prefetched> prefetch(int p) const override {
    std::lock_guard lock(mu_);
    prefetched_.push_back(p);
    auto ahead = std::make_shared<Ahead>(p, const_cast<PrefetchingSource&>(*this));
    most_live_ = std::max(most_live_, live_.load());
    return ahead;
  }
  std::unique_ptr<BatchReader> open_prefetched(int p, int64_t rows,
                                               std::shared_ptr<Prefetched> ahead) const override {
    std::lock_guard lock(mu_);
    if (ahead) opened_with_.push_back(dynamic_cast<Ahead&>(*ahead).partition == p ? p : -1);
    return table_.open(p, rows);
  }

  mutable std::mutex mu_;
  mutable std::vector<int> prefetched_, opened_with_;  // guarded by mu_
  mutable int most_live_ = 0;                          // guarded by mu_
  std::atomic<int> live_{0};

 private:
  TableSource table_;
};

TEST(PartitionSupply, TheNextPartitionIsFetchedAheadAndOpenedWithIt) {
  constexpr int kPartitions = 16;
  for (int threads = 1; threads <= 2; ++threads) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    TestQuery q;
    PrefetchingSource source(kPartitions);
    Pipeline p = plain();
    CollectSink sink(x_schema());
    auto state = sink.global_state(kPartitions);
    FixedPartitionSupply supply(kPartitions);
    run_pipeline(q.query, p, source, sink, *state, threads, supply);
    ASSERT_EQ(q.query.error(), nullptr);
    EXPECT_EQ(values(sink.finalize(*state)), iota(5 * kPartitions));
    // Each fetched ahead once, in order, and opened with its own fetch: none wasted.
    EXPECT_GE(source.prefetched_.size(), kPartitions / 2u);
    EXPECT_TRUE(std::is_sorted(source.prefetched_.begin(), source.prefetched_.end()));
    std::vector<int> opened = source.opened_with_;
    std::sort(opened.begin(), opened.end());
    EXPECT_EQ(opened, source.prefetched_);
    // Held at once: those of the partitions started (until their readers open) and one ahead.
    EXPECT_LE(source.most_live_, std::max(4, 2 * threads) + 1);
    EXPECT_EQ(source.live_.load(), 0);
  }
}

}  // namespace
}  // namespace ember
