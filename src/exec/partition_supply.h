// Where a pipeline run takes the partitions it starts: a fixed list, or a supply that hands
// them out as they are asked for (the cluster runner shares one query's partitions between its
// ranks so that a fast rank runs more of them than a slow one).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace ember {

/// What PartitionSupply::take gives.
struct SuppliedPartition {
  enum class Kind {
    Partition,  ///< `partition` is this run's to start now
    Later,      ///< none at hand yet: the supply's waker will be called once one may be
    Exhausted   ///< none will ever come again
  };
  Kind kind = Kind::Exhausted;
  int partition = -1;  ///< Kind::Partition only
};

/// The partitions one pipeline run starts, one at a time, as it has room for another. A supply
/// never makes its caller wait: it gives a partition, says "later" and calls its waker once it
/// may give one (or knows that none will come), or says that it is exhausted. A partition it
/// gave is the run's: it is never given again, to this run or to any other.
class PartitionSupply {
 public:
  virtual ~PartitionSupply() = default;
  /// The next partition to start. Called by the run under its own lock (so calls never overlap
  /// for one run), on the run's driver thread, a pipeline thread, or the thread that calls the
  /// waker. Never blocks: a supply fed over the network asks for more and says Later. After
  /// Later the run takes nothing more until the waker is called; after Exhausted, nothing.
  virtual SuppliedPartition take() = 0;
  /// Sets the waker: after a Later, the supply calls it once, on whatever thread learns that a
  /// partition has come or that none will (the network's, say), never with its own lock held;
  /// the run then calls take() again. The run sets it before its first take() and removes it
  /// (null) before it goes: once that call returns, no waker is running or will run. Not
  /// called under the run's lock.
  virtual void set_waker(std::function<void()> wake) = 0;
  /// The partition the next take() will give, when the supply knows it and that it will run
  /// in this run (not handed to another rank meanwhile); -1 otherwise. Under the run's lock,
  /// like take(). The run fetches that partition's input ahead (Source::prefetch).
  virtual int peek() { return -1; }
  /// A partition this supply gave has ended in the run (or failed). Called on the thread that
  /// ran its last step, not under the run's lock: a supply that said Later because its caller
  /// held enough may call its waker from here.
  virtual void ended(int /*partition*/) {}
};

/// The waker a supply that says Later keeps, guarded by the supply's own mutex: set() waits for
/// a call under way to return (set_waker's contract), and the call runs with that mutex let go.
class SupplyWaker {
 public:
  /// set_waker's body; `lock` holds the supply's mutex.
  void set(std::function<void()> wake, std::unique_lock<std::mutex>& lock) {
    returned_.wait(lock, [&] { return !calling_; });
    wake_ = std::move(wake);
  }
  /// Under the supply's mutex: the waker to call once that mutex is let go (empty when none is
  /// set), counted as under way until call() returns.
  std::function<void()> take_locked() {
    calling_ = static_cast<bool>(wake_);
    return wake_;
  }
  /// Calls what take_locked() gave, with the supply's mutex `mu` not held.
  void call(const std::function<void()>& wake, std::mutex& mu) {
    if (!wake) return;
    wake();
    {
      std::lock_guard lock(mu);
      calling_ = false;
    }
    returned_.notify_all();
  }

 private:
  std::function<void()> wake_;
  bool calling_ = false;
  std::condition_variable returned_;
};

/// The partitions of a list, in its order; or, without one, 0 .. count - 1. Never Later.
class FixedPartitionSupply final : public PartitionSupply {
 public:
  explicit FixedPartitionSupply(std::vector<int> partitions)
      : partitions_(std::move(partitions)), count_(static_cast<int>(partitions_.size())) {}
  explicit FixedPartitionSupply(int count) : count_(count) {}
  SuppliedPartition take() override {
    if (next_ == count_) return {};
    const int i = next_++;
    return {SuppliedPartition::Kind::Partition,
            partitions_.empty() ? i : partitions_[static_cast<size_t>(i)]};
  }
  void set_waker(std::function<void()>) override {}  // it never says Later
  int peek() override {
    if (next_ == count_) return -1;
    return partitions_.empty() ? next_ : partitions_[static_cast<size_t>(next_)];
  }
  /// How many partitions it gives in all.
  int count() const { return count_; }

 private:
  std::vector<int> partitions_;  ///< empty: 0 .. count_ - 1
  int count_;
  int next_ = 0;  ///< under the run's lock (take's calls never overlap)
};

}  // namespace ember
