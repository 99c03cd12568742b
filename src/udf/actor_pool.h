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

/// Owns N actors, each driven by a thread of its own that constructs the UDF, serves its calls
/// one at a time and destroys it (see src/udf/actor_lifecycle.md). Thread-safe.
class ActorPool {
 public:
  /// One actor per context (from admission). An empty `actors` means spec->concurrency actors
  /// with ids 0..n-1 and the spec's per-actor CPUs and memory (no GPUs). Starts nothing.
  /// Throws InvalidArgument unless `spec` is a stateful UDF.
  ActorPool(std::shared_ptr<const UdfSpec> spec, std::vector<ActorContext> actors);
  ~ActorPool();  ///< stops the pool

  /// Constructs every actor's UDF in parallel, each on its actor's own thread, and waits for
  /// all. On any failure, stops the pool (the actors that did construct are destroyed, queued
  /// work is cancelled) and throws the first failure as UdfError naming the UDF and actor.
  /// A second call does nothing; after stop() it throws Cancelled.
  void start();
  /// Queues `args` (at most batch_size rows) for the least-loaded actor (up to 2 in flight per
  /// actor, the rest wait in the pool's queue). Never blocks; any thread, concurrently; work
  /// dispatched before start() runs once the actors are up. `done` runs exactly once, with no
  /// pool lock held: on an actor thread with the checked result or a UdfError, or on the
  /// thread calling dispatch()/stop() with Cancelled once the pool is stopping. `done` may
  /// dispatch again but must not call start() or stop(), and must not throw.
  void dispatch(Batch args, std::function<void(CallResult)> done);
  /// Cancels queued work (their `done` gets Cancelled), waits for running calls to finish and
  /// deliver, then each actor thread destroys its instance and is joined. Idempotent and safe
  /// to call concurrently (every caller returns once the pool is down); not from an actor
  /// thread, i.e. not from `done`.
  void stop();

  int num_actors() const;
  /// Actors running a call right now.
  int busy_actors() const;
  /// Batches dispatched whose `done` has not yet returned.
  int64_t in_flight() const;
  /// Figures so far: inits, successful batches and their rows, construction and call time
  /// summed over actors. The held_* fields are left 0 (the executor knows the grant).
  UdfStats stats() const;
  const UdfSpec& spec() const { return *spec_; }

 private:
  struct Impl;
  std::shared_ptr<const UdfSpec> spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember
