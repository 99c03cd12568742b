// One partition's view of an actor pool: re-batching to batch_size, dispatch, and re-sequencing
// results into input order within a bounded window.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "exec/physical_plan.h"
#include "udf/actor_pool.h"

namespace ember {

/// Owned by one partition driver. feed/flush/next_ready run on the driver's thread;
/// complete() runs on actor threads.
class PoolStage {
 public:
  /// `wake` is called (from an actor thread) after each completion.
  PoolStage(const PhysicalOp& op, ActorPool& pool, std::function<void()> wake);

  /// Appends rows; dispatches every full batch_size chunk.
  void feed(const Batch& input);
  /// Upstream ended: dispatches the remainder.
  void flush();
  /// True while fewer than the window's chunks are in flight.
  bool can_accept() const;
  /// The next output batch in input order (input columns + the UDF's column), if it is back.
  /// Rethrows the call's error.
  std::optional<Batch> next_ready();
  /// Upstream ended and every chunk came back and was emitted.
  bool drained() const;
  bool flushed() const { return flushed_; }
  int64_t in_flight() const;

 private:
  void dispatch(Batch chunk);
  void complete(int64_t seq, CallResult result);

  const PhysicalOp& op_;
  ActorPool& pool_;
  std::function<void()> wake_;
  int64_t batch_size_;
  int64_t window_;

  std::vector<Batch> pending_;
  int64_t pending_rows_ = 0;
  bool flushed_ = false;
  int64_t next_seq_ = 0;
  int64_t next_emit_ = 0;
  std::map<int64_t, Batch> inputs_;  ///< chunks awaiting their results (driver thread only)

  mutable std::mutex mu_;
  std::map<int64_t, CallResult> results_;  ///< completed, not yet emitted
  int64_t outstanding_ = 0;                ///< dispatched, not yet completed
};

}  // namespace ember
