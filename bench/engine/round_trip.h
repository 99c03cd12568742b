// Round-trip latency of handing one small piece of work to another thread (or actor) and
// waiting for its answer: through an ActorPool, and through a bare thread (the floor).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "ember/batch.h"

namespace ember {
class ActorPool;
}

namespace ember::bench {

/// A re-armable one-shot signal. Both the pool round trip and its baseline wait on this, so
/// they pay the same wake-up cost.
class Completion {
 public:
  /// Sets the signal and wakes the waiter. Any thread.
  void signal();
  /// Waits until signalled, then re-arms. False when `timeout` passes first.
  bool wait(std::chrono::milliseconds timeout);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

/// Microseconds per round trip: dispatch `args` to `pool` (started), wait for its `done`,
/// `rounds` times in a row. Throws std::runtime_error when a call fails, returns the wrong
/// number of rows, or does not finish within 60 s.
std::vector<double> pool_round_trips_us(ActorPool& pool, const Batch& args, int rounds);

/// Microseconds per round trip between this thread and a second std::thread: signal it, wait
/// for its signal back. The OS floor under any cross-thread dispatch.
std::vector<double> thread_round_trips_us(int rounds);

}  // namespace ember::bench
