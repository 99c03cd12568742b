// A pool of N actors serving one stateful UDF for the lifetime of a query.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ember/batch.h"
#include "ember/dataframe.h"
#include "udf/udf_spec.h"

namespace ember {

/// Outcome of one dispatched batch: the result column or the error that ended it.
using CallResult = std::variant<Column, std::exception_ptr>;

/// Owns N actors, each driven by a thread of its own. Thread-safe.
class ActorPool {
 public:
  ActorPool(std::shared_ptr<const UdfSpec> spec, std::vector<ActorContext> actors);
  ~ActorPool();  ///< stops the pool

  /// Constructs every actor's UDF in parallel and waits for all. On any failure, tears down
  /// the others and throws UdfError naming the UDF with the original message.
  void start();
  /// Queues `args` (at most batch_size rows) for the least-loaded actor (up to 2 in flight per
  /// actor, the rest wait in the pool's queue). Never blocks. `done` runs exactly once, on an
  /// actor thread (or inline if the pool is stopped), with the checked result or the error.
  void dispatch(Batch args, std::function<void(CallResult)> done);
  /// Cancels queued work (their `done` gets Cancelled), waits for running calls, destroys every
  /// actor. Idempotent; safe from any thread except an actor thread.
  void stop();

  int num_actors() const;
  /// Actors running a call right now.
  int busy_actors() const;
  /// Batches dispatched but not yet completed.
  int64_t in_flight() const;
  UdfStats stats() const;
  const UdfSpec& spec() const { return *spec_; }

 private:
  struct Impl;
  std::shared_ptr<const UdfSpec> spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember
