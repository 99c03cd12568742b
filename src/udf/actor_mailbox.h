// The work an actor has been handed but not started: at most two batches per call it may run
// at once, in a ring sized once so that handing a batch to an actor allocates nothing.
#pragma once

#include <cassert>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "udf/actor_pool.h"

namespace ember {

/// One dispatched batch and where its outcome goes.
struct ActorTask {
  Batch args;
  std::function<void(CallResult)> done;
  int retries = 0;  ///< times the pool has run it again after a failed call
  /// Dispatched for another rank's partition (ActorPool::dispatch_foreign): not counted among
  /// the pool's batches that moved to a lent actor.
  bool foreign = false;
  /// When it went to the pool's backlog (no actor had room): how long batches wait for an
  /// actor, which is what makes an autoscaling pool grow.
  std::chrono::steady_clock::time_point queued{};
};

/// Not thread-safe: guarded by the pool's lock.
class ActorMailbox {
 public:
  /// Batches queued per call slot: one running, one waiting keeps an actor busy.
  static constexpr int kPerCall = 2;

  explicit ActorMailbox(int calls_at_once = 1)
      : slots_(static_cast<size_t>(kPerCall * calls_at_once)) {}

  int capacity() const { return static_cast<int>(slots_.size()); }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity(); }

  void push(ActorTask task) {
    assert(!full() && "an actor is never handed more than its capacity");
    slots_[static_cast<size_t>((head_ + size_) % capacity())] = std::move(task);
    ++size_;
  }

  ActorTask pop() {
    assert(!empty());
    ActorTask task = std::move(slots_[static_cast<size_t>(head_)]);
    slots_[static_cast<size_t>(head_)] = ActorTask{};  // drop moved-from remnants now
    head_ = (head_ + 1) % capacity();
    --size_;
    return task;
  }

 private:
  std::vector<ActorTask> slots_;
  int head_ = 0;
  int size_ = 0;
};

}  // namespace ember
