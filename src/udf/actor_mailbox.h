// The work an actor has been handed but not started: at most two batches, in a fixed ring so
// that handing a batch to an actor allocates nothing.
#pragma once

#include <array>
#include <cassert>
#include <functional>
#include <utility>

#include "udf/actor_pool.h"

namespace ember {

/// One dispatched batch and where its outcome goes.
struct ActorTask {
  Batch args;
  std::function<void(CallResult)> done;
  int retries = 0;  ///< times the pool has run it again after a failed call
};

/// Not thread-safe: guarded by the pool's lock.
class ActorMailbox {
 public:
  static constexpr int kCapacity = 2;

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == kCapacity; }

  void push(ActorTask task) {
    assert(!full() && "an actor is never handed more than kCapacity batches");
    slots_[static_cast<size_t>((head_ + size_) % kCapacity)] = std::move(task);
    ++size_;
  }

  ActorTask pop() {
    assert(!empty());
    ActorTask task = std::move(slots_[static_cast<size_t>(head_)]);
    slots_[static_cast<size_t>(head_)] = ActorTask{};  // drop moved-from remnants now
    head_ = (head_ + 1) % kCapacity;
    --size_;
    return task;
  }

 private:
  std::array<ActorTask, kCapacity> slots_;
  int head_ = 0;
  int size_ = 0;
};

}  // namespace ember
