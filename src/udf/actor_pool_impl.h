// The state an ActorPool shares between its public face (actor_pool.cpp) and the threads that
// drive its actors (actor_pool_lanes.cpp): the actors' slots, their lanes, and the pool's lock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "udf/actor.h"
#include "udf/actor_mailbox.h"
#include "udf/actor_pool.h"
#include "udf/failure_policy.h"

namespace ember {

using PoolClock = std::chrono::steady_clock;
/// What one lane's thread is doing.
enum class LanePhase { Starting, Idle, Calling, Delivering };

/// One of an actor's call slots: a thread and the call it runs. Guarded by Impl::mu.
struct Lane {
  std::thread thread;
  uint64_t generation = 0;  ///< bumped when the thread is given up; it then touches no lane
  bool running = false;     ///< the current generation's thread has not finished
  LanePhase phase = LanePhase::Starting;
  ActorTask current;                  ///< the batch being called (phase Calling)
  const Actor* calling_on = nullptr;  ///< the actor that call runs on
  PoolClock::time_point deadline;     ///< when the call runs past Udf::timeout
};

/// The state of one actor as the pool sees it. Its own cache line: actors run in parallel.
struct alignas(64) ActorSlot {
  ActorSlot(ActorContext c, int lanes) : ctx(std::move(c)), mailbox(lanes), lanes(lanes) {}
  ActorContext ctx;
  ActorMaker maker;  ///< null: the backend follows the spec's isolation
  std::condition_variable wake;
  // Guarded by Impl::mu:
  ActorMailbox mailbox;
  int load = 0;  ///< batches handed to this actor and not finished
  std::vector<Lane> lanes;
  std::shared_ptr<Actor> actor;     ///< constructed and serving; null before, and once retired
  bool constructing = false;        ///< a lane is constructing `actor`
  std::shared_ptr<Actor> starting;  ///< the actor being constructed (for teardown's abort)
  bool reported = false;            ///< its first construction was reported to wait_started()
  bool broken = false;              ///< its first construction failed
  int64_t past_inits = 0;           ///< constructions of actors no longer in `actor`
  /// Takes work. An autoscaling pool's slots past its minimum start inactive; one that grew
  /// and then shrank again is inactive and `retiring` until its lanes are joined.
  bool active = true;
  bool retiring = false;
  bool grown = false;                ///< its resources came from Growth::acquire
  bool spare = false;                ///< set_spares: takes work only once lent
  bool lent = false;                 ///< lend_spares: a spare taking work
  PoolClock::time_point idle_since;  ///< when its load last fell to 0
  // Figures written by this actor's lanes; stats() sums them over actors.
  std::atomic<int64_t> batches{0}, rows{0}, busy_ns{0}, init_ns{0};
};

struct ActorPool::Impl : std::enable_shared_from_this<ActorPool::Impl> {
  std::shared_ptr<const UdfSpec> spec;
  FailurePolicy policy;  ///< spec's, set with it
  std::vector<std::unique_ptr<ActorSlot>> slots;

  std::mutex mu;
  std::condition_variable all_started;
  std::condition_variable lane_exited;  // a lane's thread finished, or was given up
  std::condition_variable watch;        // wakes the watchdog: a call began, or the pool ends
  std::deque<ActorTask> backlog;        // guarded by mu
  /// Failed calls waiting out their backoff, by when they are due; guarded by mu.
  std::multimap<PoolClock::time_point, ActorTask> delayed;
  bool stopping = false;         // guarded by mu; set by cancel() and stop()
  bool watchdog_exit = false;    // guarded by mu
  std::exception_ptr failure;    // guarded by mu; the first batch that failed
  int launched_actors = 0;       // guarded by mu; slots launch() started lanes for
  int starts_reported = 0;       // guarded by mu; of those, first constructions ended or given up
  PoolClock::time_point all_up;  // guarded by mu; when starts_reported reached launched_actors
  std::exception_ptr first_start_error;            // guarded by mu
  size_t next_pick = 0;                            // guarded by mu; rotates ties between actors
  bool own_actors_only = false;                    // guarded by mu; see keep_to_own_actors
  std::chrono::milliseconds teardown_grace{5000};  // guarded by mu

  /// Guards on_failure alone, so the hook runs with no pool lock held yet never after it was
  /// removed (see ActorPool::set_on_failure).
  std::mutex on_failure_mu;
  std::function<void(const std::exception_ptr&)> on_failure;  // guarded by on_failure_mu

  /// Serialises start() and stop(), which create and join the threads.
  std::mutex lifecycle_mu;
  bool started = false;  // guarded by lifecycle_mu
  bool stopped = false;  // guarded by lifecycle_mu
  std::thread watchdog;  // guarded by lifecycle_mu; thread actors with a timeout only

  /// Requested at the first failure or at cancel(): process actors then start no worker.
  std::stop_source doomed;

  // Autoscaling (Udf::concurrency(min, max)); see actor_pool_scaling.cpp.
  int min_actors = 0;                           // slots active at start
  int active_actors = 0;                        // guarded by mu
  int peak_actors = 0;                          // guarded by mu
  ActorPool::Growth growth;                     // set before start
  std::chrono::milliseconds grow_after{20};     // guarded by mu
  std::chrono::milliseconds shrink_after{500};  // guarded by mu
  std::condition_variable scaler_wake;          // wakes the scaler: the pool ends
  bool scaler_exit = false;                     // guarded by mu
  std::thread scaler;                           // guarded by lifecycle_mu
  std::atomic<int64_t> scale_ups{0}, scale_downs{0};

  alignas(64) std::atomic<int64_t> in_flight{0};
  std::atomic<int> busy{0};
  std::atomic<int64_t> retries{0};       // calls the pool ran again
  std::atomic<int64_t> timeouts{0};      // calls that ran past spec->timeout
  std::atomic<int64_t> lent_batches{0};  // batches_lent()

  /// Starts the thread of lane `i` of `slot`, in the lane's current generation. Requires mu.
  void spawn_lane_locked(ActorSlot& slot, size_t i);
  /// A lane's thread: takes the actor (constructing it if no lane has), serves calls, and
  /// leaves once the pool stops or the lane is given up.
  void serve(ActorSlot& slot, size_t i, uint64_t generation);
  /// The slot's actor, constructed by this lane if no other lane is doing so; null when the
  /// lane should leave. Requires mu (held by `lock`; released while constructing).
  std::shared_ptr<Actor> acquire_actor(ActorSlot& slot, size_t i, uint64_t generation,
                                       std::unique_lock<std::mutex>& lock);
  /// Counts `slot`'s first construction as over (failed with `error`, if not null) for
  /// wait_started(). Requires mu.
  void report_start_locked(ActorSlot& slot, const std::exception_ptr& error);
  /// What a failed first construction of `slot`'s actor fails its pool with: ember's errors
  /// as they are, anything else as a UdfError naming the UDF and actor.
  std::exception_ptr start_error(const ActorSlot& slot, const std::exception_ptr& error) const;
  /// A due retry, else the slot's next queued batch, else one stolen. Requires mu.
  bool take_task_locked(ActorSlot& slot, ActorTask& task);
  /// Moves into `slot`'s empty mailbox (its actor idle and taking work, not a spare) a batch
  /// queued on an actor whose every call lane is busy: a batch never waits behind a call that
  /// hangs or runs long while another of the pool's own actors has nothing to do. Requires mu.
  bool steal_locked(ActorSlot& slot);
  /// Ends lane `i`'s thread: the last lane of an actor destroys it (with no lock held).
  void leave(ActorSlot& slot, size_t i, uint64_t generation, std::shared_ptr<Actor> actor,
             std::unique_lock<std::mutex>& lock);
  /// Delivers a finished call, or, when it failed and has retries left, queues it in
  /// `delayed` and returns false.
  bool settle(ActorTask& task, CallResult result);
  /// Queues a failed `task` to run again after its backoff; false if the pool will not (it is
  /// stopping or has failed).
  bool retry_later(ActorTask& task, PoolClock::duration wait);
  /// The watchdog's loop: retires the lanes whose calls run past spec->timeout.
  void watch_deadlines();
  /// The scaler's loop (autoscaling pools only): grows the pool while batches wait for an
  /// actor, shrinks it while actors sit idle, and joins and releases what shrank.
  void scale();
  /// One actor more, if the pool may grow and Growth::acquire finds room. Takes `lock` (mu)
  /// held; releases it around the acquire.
  void grow(std::unique_lock<std::mutex>& lock);
  /// Deactivates the idlest surplus actor past shrink_after, if any. Requires mu.
  bool shrink_locked(PoolClock::time_point now);
  /// Joins the lanes of shrunk slots and gives their resources back. Takes `lock` (mu)
  /// held; releases it around joins and releases.
  void bury_shrunk(std::unique_lock<std::mutex>& lock);
  /// Retires lane `i` of `slot` (its call timed out) and its actor; starts a fresh lane unless
  /// the pool is stopping. Requires mu; the timed-out batch goes to `expired`.
  /// Returns the pool's failure when no thread could be started for the fresh lane.
  std::exception_ptr retire_locked(ActorSlot& slot, size_t i,
                                   std::vector<std::pair<ActorTask, std::exception_ptr>>& expired);
  /// Detaches lane `i`'s thread: it touches nothing of the lane again, and its running batch
  /// (if any) moves to `orphans`. Requires mu.
  void give_up_locked(ActorSlot& slot, size_t i, std::vector<ActorTask>& orphans);
  /// Teardown past its grace: kills the workers of process actors still busy, and gives up the
  /// lanes of thread actors still calling or constructing. Requires mu.
  void give_up_running_locked(std::vector<ActorTask>& orphans,
                              std::vector<std::shared_ptr<Actor>>& dropped);
  /// Where a new batch goes: an actor that is not a spare with a call lane free; else the
  /// least-loaded lent spare with room; else the least-loaded other actor with room (not for
  /// a `foreign` batch while own_actors_only); null when none has room. Requires mu.
  ActorSlot* least_loaded(bool foreign);
  /// Queues `task` (dispatch, dispatch_foreign).
  void dispatch_task(ActorTask task, bool ahead);
  /// Whether `slot` is a spare now (set_spares, or made by a maker while own_actors_only).
  /// Requires mu.
  bool is_spare(const ActorSlot& slot) const {
    return slot.spare || (own_actors_only && slot.maker != nullptr);
  }
  /// Whether `slot` may be handed new work now (active, and lent if a spare). Requires mu.
  bool takes_work(const ActorSlot& slot) const {
    return slot.active && (!is_spare(slot) || slot.lent);
  }
  /// Moves every queued task (mailboxes, backlog and delayed) out. Requires mu.
  std::vector<ActorTask> take_queued_locked();
  /// Records `error` of a finished batch as the pool's failure unless it is a Cancelled
  /// (`cancelled`) or one is recorded already; the first time, moves what is queued into
  /// `unrun` for refuse(). Returns the pool's failure (null if none).
  std::exception_ptr record_failure(const std::exception_ptr& error, bool cancelled,
                                    std::vector<ActorTask>& unrun);
  /// Runs the on_failure hook for the pool's first failure, unless it is a cancellation.
  void announce_failure(const std::exception_ptr& error);
  /// record_failure() for an error of the pool itself, then refuses what it took.
  void fail_pool(const std::exception_ptr& error);
  void cancel();
  void stop_locked();
  /// Completes a task that will not run: with `failure`, else Cancelled.
  void refuse(ActorTask& task, const std::exception_ptr& failure);
  /// "udf 'speller' actor #1"
  std::string who(const ActorSlot& slot) const {
    return "udf '" + spec->name + "' actor #" + std::to_string(slot.ctx.actor_id);
  }
};

}  // namespace ember
