// A pool of N actors serving one stateful UDF for the lifetime of a query.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/cancelled.h"
#include "ember/batch.h"
#include "ember/query_stats.h"
#include "udf/actor.h"
#include "udf/udf_spec.h"

namespace ember {

/// Outcome of one dispatched batch: the result column or the error that ended it.
using CallResult = std::variant<Column, std::exception_ptr>;

/// Owns N actors, each driven by max_concurrency threads of its own ("lanes") that construct
/// the UDF once, serve up to that many calls at once and destroy it (see
/// docs/design/actor_lifecycle.md). Thread-safe.
class ActorPool {
 public:
  /// One actor per context (from admission). An empty `actors` means spec->concurrency actors
  /// with ids 0..n-1 and the spec's per-actor CPUs and memory (no GPUs). Starts nothing.
  /// Throws InvalidArgument unless `spec` is a stateful UDF. `makers`, when not empty, has one
  /// entry per actor: a non-null one makes that actor's backend instead of the isolation's.
  ActorPool(std::shared_ptr<const UdfSpec> spec, std::vector<ActorContext> actors,
            std::vector<ActorMaker> makers = {});
  ~ActorPool();  ///< stops the pool

  /// launch(), then waits for every actor's construction. On any failure, stops the pool (the
  /// actors that did construct are destroyed, queued work is cancelled) and throws the first
  /// failure as UdfError naming the UDF and actor. A second call does nothing; after cancel()
  /// or stop() it throws Cancelled.
  void start();
  /// Starts constructing every actor's UDF in parallel, each on its actor's own thread, and
  /// returns at once, so that a query reads and prepares its input while its models load:
  /// dispatched work waits for its actor. If a construction fails, the pool fails as a whole,
  /// whatever spec.on_error says: work queued and dispatched later completes with that failure
  /// (the UdfError start() would throw) and failed() turns true. A second call does nothing;
  /// after cancel() or stop() it throws Cancelled.
  void launch();
  /// Waits until every actor launch() started has constructed (or given up because the pool
  /// was cancelled first) and throws the first construction failure as start() does. Does not
  /// stop the pool. Any thread; returns at once before launch() and after stop().
  void wait_started();
  /// Whether the pool has failed as a whole: an actor could not be constructed, or (under
  /// OnError::Raise) a batch failed. Its work then completes with that failure.
  bool failed() const;
  /// Queues `args` (at most batch_size rows) for the least-loaded actor (up to 2 in flight per
  /// call the actor may run at once, the rest wait in the pool's queue). Never blocks; any thread,
  /// concurrently; work dispatched before start() runs once the actors are up. `done` runs exactly
  /// once, with no pool lock held: on an actor thread with the checked result or a UdfError, or,
  /// for work the pool will not run, on the thread that decided so (see below). `done` may dispatch
  /// again but must not call start(), cancel() or stop(), and must not throw.
  ///
  /// A call that throws is run again up to spec.max_retries times, each after its backoff
  /// (spec.retry_backoff, or the RetryAfter it threw), waiting in the pool rather than on an
  /// actor; `done` then sees only the last outcome. Under OnError::Raise, a batch that fails
  /// after its retries fails its query, so the pool runs nothing more: work still queued
  /// (retries included), and work dispatched later, completes at once with that same error,
  /// and process actors start no replacement worker (a call already running finishes, but a
  /// worker that dies under it is not replaced). Under Null and Skip the pool keeps serving
  /// and the failed batch is the caller's to isolate. Work refused because the pool was
  /// cancelled or is stopping completes with Cancelled, or with that error if a batch failed
  /// first.
  ///
  /// `ahead` queues the batch before the work still waiting for an actor (not before work an
  /// actor was already handed): for the pieces of a failed batch being isolated, which hold up
  /// their query's output until they are back.
  void dispatch(Batch args, std::function<void(CallResult)> done, bool ahead = false);
  /// dispatch() for a batch of another rank's partition (a cluster's pool service): the same
  /// in every way but that batches_lent() does not count it.
  void dispatch_foreign(Batch args, std::function<void(CallResult)> done);
  /// Ends the pool's service without waiting, for a query that has failed: queued work
  /// completes (on this thread) as dispatch() describes, later dispatches are refused the same
  /// way, process actors start no worker and retry nothing, and each actor destroys its
  /// instance once its running call (if any) has delivered. Idempotent; any thread,
  /// concurrently; not from `done`.
  void cancel();
  /// cancel(), then waits for running calls to finish and deliver and for each actor thread to
  /// destroy its instance, and joins them. Idempotent and safe to call concurrently (every
  /// caller returns once the pool is down); not from an actor thread, i.e. not from `done`.
  /// A call still running after teardown_grace is given up: a process actor's worker is
  /// killed; a thread actor's thread is detached (it owns what it touches and finishes on its
  /// own; its result is dropped) and its batch completes with Cancelled or the pool's failure.
  void stop();
  /// How long stop() waits for running calls before giving them up. Default 5 s.
  void set_teardown_grace(std::chrono::milliseconds grace);
  std::chrono::milliseconds teardown_grace() const;
  /// For a query that failed and has waited out teardown_grace() after cancel(): gives up
  /// every call still running now, as stop() does past its grace (a process actor's worker is
  /// killed; a thread actor's lane is detached and its batch completes with Cancelled or the
  /// pool's failure), without waiting for anything, so that the partitions waiting for those
  /// calls end. Driver thread; not from `done`. Idempotent per call.
  void give_up_running();

  /// `hook` runs once, the first time the pool fails as a whole (an actor could not be
  /// constructed, or under OnError::Raise a batch failed; never for a cancellation), with that
  /// failure, on the thread that recorded it and with no pool lock held. It must not block nor
  /// call into the pool. So a query learns of a constructor that threw while none of its
  /// batches has reached the pool yet. Null removes it: once that call returns, no hook call
  /// is running. Any thread.
  void set_on_failure(std::function<void(const std::exception_ptr&)> hook);

  /// Where an autoscaling pool (spec.max_actors > spec.concurrency) gets the resources of an
  /// actor it adds and gives them back. `acquire(actor_id)` returns the actor's context, or
  /// nullopt when there is no room now; `release(actor_id)` is called once per acquire, after
  /// that actor is destroyed. Without them, added actors take the spec's per-actor share
  /// without asking anyone. Both run on the pool's scaler thread (or in stop()), with no pool
  /// lock held.
  struct Growth {
    std::function<std::optional<ActorContext>(int actor_id)> acquire;
    std::function<void(int actor_id)> release;
  };
  /// Before start(); ignored after (a pool a session lent keeps its own).
  void set_growth(Growth growth);
  /// An autoscaling pool grows once the oldest batch waiting for an actor has waited
  /// `grow_after`, and destroys an actor idle for `shrink_after`. Defaults 20 ms and 500 ms.
  void set_scaling(std::chrono::milliseconds grow_after, std::chrono::milliseconds shrink_after);
  /// Actors taking work now (between spec.concurrency and spec.max_actors).
  int active_actors() const;

  /// `on`: new work (dispatches, the backlog, due retries) goes only to the pool's own actors,
  /// those made with its isolation's backend rather than by an ActorMaker (on a cluster's rank
  /// 0: its own actors, not those on other ranks), least-loaded among them; the others finish
  /// what they hold. Ignored while the pool has no own actor. `off` restores every actor. For a
  /// query whose other ranks call only their own actors, so that each rank serves its own
  /// partitions. Any thread; idempotent.
  void keep_to_own_actors(bool on);

  /// Lending idle actors (a cluster whose partitions ran out): spares are actors that take new
  /// work only once lent, and then only when none of the others has a call lane free (local
  /// first: a batch waits for a busy own actor's queue only when no lent one has room either).
  /// While keep_to_own_actors is on, the actors made by an ActorMaker are spares; set_spares
  /// makes `actor_ids` spares too (a pool made for one query, before launch()).
  void set_spares(const std::vector<int>& actor_ids);
  /// Every host (Actor::host) in lend_spares().
  static constexpr int kAnyHost = -2;
  /// The spares whose actors run on `host` (kAnyHost: every spare) take work from now on, as
  /// above; keep_to_own_actors (either way) takes every loan back. Any thread; idempotent.
  void lend_spares(int host = kAnyHost);
  /// Batches dispatched here (not by dispatch_foreign) that a lent spare ran, since the pool
  /// was made. Any thread.
  int64_t batches_lent() const;

  /// Whether the pool can serve another query as it is: started, not cancelled, stopped nor
  /// failed, nothing in flight, and every actor constructed and alive (no dead worker).
  bool reusable() const;

  int num_actors() const;
  /// Calls running right now (at most num_actors() x max_concurrency).
  int busy_actors() const;
  /// Batches dispatched whose `done` has not yet returned.
  int64_t in_flight() const;
  /// Figures so far: inits, successful batches and their rows, retries, construction and call
  /// time summed over actors, peak actors and scale-ups/downs (failed_rows is the caller's to
  /// add). `actors` is the number it starts with. The held_* fields are left 0 (the executor
  /// knows the grant).
  UdfStats stats() const;
  /// One actor's figures so far (stats() is their sum, plus the pool's own retries).
  struct ActorFigures {
    int64_t inits = 0, rows = 0;
    double busy_seconds = 0;
  };
  /// Figures per actor slot: first those of the contexts the pool was made with, in order,
  /// then (autoscaling) one per actor it may add.
  std::vector<ActorFigures> actor_figures() const;
  const UdfSpec& spec() const { return *spec_; }

 private:
  struct Impl;
  std::shared_ptr<const UdfSpec> spec_;
  std::shared_ptr<Impl> impl_;  ///< shared with the actor threads, which may outlive the pool
};

}  // namespace ember
