// The role of an operator whose work completes later, on other threads (an actor pool): a
// pipeline thread hands it rows and comes back when woken, never waiting for it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "ember/batch.h"

namespace ember {

class QueryContext;

/// One partition's state of an asynchronous operator. Every method runs on the thread driving
/// that partition (one at a time); results arrive on other threads, which call the `wake` given
/// to AsyncOperator::local_state.
class AsyncOperatorState {
 public:
  virtual ~AsyncOperatorState() = default;
  /// Takes rows; may start work on them. Never blocks.
  virtual void feed(const Batch& input) = 0;
  /// The input ended: starts work on whatever is held back. Idempotent.
  virtual void flush() = 0;
  virtual bool flushed() const = 0;
  /// False while enough work is outstanding that the driver should feed no more (backpressure).
  virtual bool can_accept() const = 0;
  /// The next output batch in input order, if it is ready; rethrows the error of work that
  /// failed.
  virtual std::optional<Batch> next_ready() = 0;
  /// Flushed, and every output has been taken.
  virtual bool drained() const = 0;
  /// Starts work on whatever is held back, as flush() does, but more input may follow (a
  /// checkpoint waits for every row fed so far). Idempotent.
  virtual void release_held() = 0;
  /// Every row fed so far has come out (or was dropped) and been taken: nothing held back,
  /// nothing in flight.
  virtual bool caught_up() const = 0;
  /// Work started and not yet completed: the state must outlive it (a completion still
  /// refers to it), so the driver ends only at zero. Any thread.
  virtual int64_t in_flight() const = 0;
};

/// An operator that starts work elsewhere and is woken by its completions. Plain data made by
/// the physical planner; all mutable state lives in the per-partition AsyncOperatorState.
class AsyncOperator {
 public:
  virtual ~AsyncOperator() = default;
  /// The state of partition `partition` (of its pipeline's source). `wake` (called from
  /// whichever thread completes work, possibly under the state's lock) makes the partition's
  /// driver run again; it must not block.
  virtual std::unique_ptr<AsyncOperatorState> local_state(QueryContext& query, int partition,
                                                          std::function<void()> wake) const = 0;
};

}  // namespace ember
