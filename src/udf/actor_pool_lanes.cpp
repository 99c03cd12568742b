// The threads that drive an ActorPool's actors ("lanes", max_concurrency per actor): each
// takes the actor (the first constructs it), serves calls, and the last one out destroys it.
//
// Deadlines: a process actor enforces Udf::timeout itself (it kills its worker). A thread
// actor cannot be interrupted, so a watchdog thread retires a lane whose call runs past it: the
// lane's thread is detached (it holds the pool's state and its actor by shared_ptr, and drops
// its result when the call returns), the batch fails with CallTimedOut, and a fresh lane
// constructs a fresh actor. stop() gives up the same way on calls still running after its
// grace period (and kills a process actor's worker), so a hung UDF never holds a finished
// query forever.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "udf/actor_pool_impl.h"
#include "udf/udf_call.h"

namespace ember {
namespace {

using Clock = PoolClock;

int64_t nanos_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

/// Runs one batch and checks the result's shape; any failure becomes the outcome.
CallResult call_checked(const UdfSpec& spec, Actor& actor, const Batch& args) {
  try {
    Column result = actor.call(args);
    check_udf_result(spec, result, args.num_rows());
    return result;
  } catch (...) {
    return std::current_exception();
  }
}

std::string what_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

/// Writes one line to stderr at once (no stream state shared with the user's program).
void warn(const std::string& line) {
  const std::string text = "ember: " + line + "\n";
  [[maybe_unused]] ssize_t n = ::write(2, text.data(), text.size());
}

}  // namespace

// ---- lanes

void ActorPool::Impl::spawn_lane_locked(ActorSlot& slot, size_t i) {
  Lane& lane = slot.lanes[i];
  // The thread waits for mu (held here) before it reads its lane, so the lane is set up first;
  // a thread that cannot be created leaves the lane not running.
  lane.thread = std::thread(
      [self = shared_from_this(), s = &slot, i, g = lane.generation] { self->serve(*s, i, g); });
  lane.running = true;
  lane.phase = LanePhase::Starting;
}

void ActorPool::Impl::report_start_locked(ActorSlot& slot, const std::exception_ptr& error) {
  slot.reported = true;
  if (++starts_reported == launched_actors) all_up = Clock::now();
  if (error && !first_start_error) first_start_error = error;
  all_started.notify_all();
}

std::exception_ptr ActorPool::Impl::start_error(const ActorSlot& slot,
                                                const std::exception_ptr& error) const {
  try {
    std::rethrow_exception(error);
  } catch (const Error&) {
    return error;  // ember's own errors (Cancelled, ResourceError, ...) keep their type
  } catch (const std::exception& e) {
    return std::make_exception_ptr(UdfError(who(slot) + " failed to start: " + e.what()));
  } catch (...) {
    return std::make_exception_ptr(UdfError(who(slot) + " failed to start"));
  }
}

std::shared_ptr<Actor> ActorPool::Impl::acquire_actor(ActorSlot& slot, size_t i,
                                                      uint64_t generation,
                                                      std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (slot.lanes[i].generation != generation || stopping || slot.broken) {
      // Cancelled before its first construction began: wait_started() stops waiting for it.
      if (!slot.reported && !slot.constructing) report_start_locked(slot, nullptr);
      return nullptr;
    }
    if (slot.actor) return slot.actor;
    if (!slot.constructing) break;
    slot.wake.wait(lock);  // another lane is constructing it
  }
  slot.constructing = true;
  slot.lanes[i].phase = LanePhase::Starting;
  lock.unlock();
  std::shared_ptr<Actor> made;
  std::exception_ptr error;
  const auto t0 = Clock::now();
  try {
    if (slot.maker)
      made = slot.maker(doomed.get_token());
    else
      made = spec->isolation == Isolation::Process
                 ? make_process_actor(spec, slot.ctx, doomed.get_token())
                 : make_thread_actor(spec, slot.ctx);
    lock.lock();
    slot.starting = made;
    lock.unlock();
    made->start();
  } catch (...) {
    error = std::current_exception();
  }
  slot.init_ns.fetch_add(nanos_since(t0), std::memory_order_relaxed);
  lock.lock();
  slot.constructing = false;
  slot.starting.reset();  // `made` still holds it: nothing is destroyed under the lock
  slot.wake.notify_all();
  const bool first = !slot.reported;
  std::exception_ptr start_failure;
  if (first) {
    if (error) start_failure = start_error(slot, error);
    report_start_locked(slot, start_failure);
  }
  const bool given_up = slot.lanes[i].generation != generation;
  if (error) slot.broken = true;
  if (!error && !given_up && !stopping) {
    slot.actor = made;
    slot.lanes[i].phase = LanePhase::Idle;
    return made;
  }
  if (!error) slot.past_inits += made->inits();
  lock.unlock();
  made.reset();  // its destructor runs with no lock held
  // The pool cannot run as asked: work waiting for this actor, or for any other, fails now
  // rather than waiting for the query to notice (the query may be reading its input still).
  if (start_failure) fail_pool(start_failure);
  if (error && !first) {
    // A replacement for a retired actor could not be constructed: its batches have nowhere to
    // go. An engine Error, not a UdfError: the query fails rather than isolating its rows.
    fail_pool(std::make_exception_ptr(
        Error(who(slot) +
              (slot.grown ? " could not be constructed as its pool grew: "
                          : " could not be replaced after a call ran past its timeout: ") +
              what_of(error))));
  }
  lock.lock();
  return nullptr;
}

bool ActorPool::Impl::take_task_locked(ActorSlot& slot, ActorTask& task) {
  // A retry that is due goes first: the batches behind it in its partition wait for it.
  if (takes_work(slot) && !delayed.empty() && delayed.begin()->first <= Clock::now()) {
    task = std::move(delayed.begin()->second);
    delayed.erase(delayed.begin());
    ++slot.load;
    return true;
  }
  // An actor that has just come up (an autoscaling pool grew) takes what waits for one.
  if (slot.mailbox.empty() && takes_work(slot) && !stopping && !backlog.empty()) {
    slot.mailbox.push(std::move(backlog.front()));
    backlog.pop_front();
    ++slot.load;
  }
  if (slot.mailbox.empty() && !steal_locked(slot)) return false;
  task = slot.mailbox.pop();
  return true;
}

bool ActorPool::Impl::steal_locked(ActorSlot& slot) {
  // A spare (another rank's idle actor, lent) takes only what is dispatched to it: a batch that
  // moved to one would hold the capacity lent for the batches that find every own actor busy.
  if (stopping || !takes_work(slot) || is_spare(slot)) return false;
  for (auto& other : slots) {
    ActorSlot& v = *other;
    if (&v == &slot || v.mailbox.empty()) continue;
    // Only a batch that waits: every lane of its actor is running a call (one that hangs, or
    // runs long on a slow actor), while this actor has nothing to do.
    const int running = v.load - v.mailbox.size();
    if (running < static_cast<int>(v.lanes.size())) continue;
    slot.mailbox.push(v.mailbox.pop());
    --v.load;
    ++slot.load;
    return true;
  }
  return false;
}

void ActorPool::Impl::serve(ActorSlot& slot, size_t i, uint64_t generation) {
  std::shared_ptr<Actor> actor;
  std::unique_lock lock(mu);
  for (;;) {
    // A lane that was given up touches nothing of its lane again.
    if (slot.lanes[i].generation != generation || stopping) break;
    if (actor != slot.actor || !actor) {
      // First time round, or the actor was retired: take (or construct) the current one.
      if (actor) {
        lock.unlock();
        actor.reset();
        lock.lock();
      }
      actor = acquire_actor(slot, i, generation, lock);
      if (!actor) break;
      continue;
    }
    // A slot the pool shrank away leaves once its work is done; its last lane destroys it.
    if (!slot.active && slot.mailbox.empty()) break;
    ActorTask task;
    if (!take_task_locked(slot, task)) {
      // Idle: sleep until woken, or until the earliest retry is due.
      // The due time is copied: wait_until reads it again after waking, when another lane
      // may have taken (and erased) that retry.
      // A slot that takes no new work now (keep_to_own_actors) has no retry to wait for.
      if (delayed.empty() || !takes_work(slot)) {
        slot.wake.wait(lock);
      } else {
        const Clock::time_point due = delayed.begin()->first;
        slot.wake.wait_until(lock, due);
      }
      continue;
    }
    if (!task.foreign && is_spare(slot)) lent_batches.fetch_add(1, std::memory_order_relaxed);
    Lane& lane = slot.lanes[i];
    Batch args = task.args;
    lane.current = std::move(task);
    lane.phase = LanePhase::Calling;
    lane.calling_on = actor.get();
    if (spec->timeout.count() > 0) {
      lane.deadline = Clock::now() + spec->timeout;
      watch.notify_one();
    }
    lock.unlock();
    busy.fetch_add(1, std::memory_order_relaxed);
    const auto t0 = Clock::now();
    CallResult result = call_checked(*spec, *actor, args);
    slot.busy_ns.fetch_add(nanos_since(t0), std::memory_order_relaxed);
    busy.fetch_sub(1, std::memory_order_relaxed);
    const int64_t rows = args.num_rows();
    args = Batch();
    lock.lock();
    // Given up meanwhile (timed out, or teardown stopped waiting): its batch was settled for
    // it, and this late result is dropped.
    if (lane.generation != generation) break;
    task = std::move(lane.current);
    lane.current = ActorTask{};
    lane.calling_on = nullptr;
    lane.phase = LanePhase::Delivering;  // never given up: `done` may still use the caller's state
    lock.unlock();
    if (std::holds_alternative<Column>(result)) {
      slot.batches.fetch_add(1, std::memory_order_relaxed);
      slot.rows.fetch_add(rows, std::memory_order_relaxed);
    }
    const bool delivered = settle(task, std::move(result));
    lock.lock();
    lane.phase = LanePhase::Idle;
    --slot.load;
    if (slot.load == 0) slot.idle_since = Clock::now();
    if (delivered) in_flight.fetch_sub(1, std::memory_order_acq_rel);
    if (!stopping && takes_work(slot) && !backlog.empty() && slot.load < slot.mailbox.capacity()) {
      slot.mailbox.push(std::move(backlog.front()));
      backlog.pop_front();
      ++slot.load;
    }
  }
  leave(slot, i, generation, std::move(actor), lock);
}

void ActorPool::Impl::leave(ActorSlot& slot, size_t i, uint64_t generation,
                            std::shared_ptr<Actor> actor, std::unique_lock<std::mutex>& lock) {
  std::shared_ptr<Actor> last;
  const bool mine = slot.lanes[i].generation == generation;
  if (mine) {
    slot.lanes[i].running = false;
    const bool others =
        std::any_of(slot.lanes.begin(), slot.lanes.end(), [](const Lane& l) { return l.running; });
    if (!others && slot.actor) {
      slot.past_inits += slot.actor->inits();
      last = std::move(slot.actor);
    }
    lane_exited.notify_all();
  }
  lock.unlock();
  // The instance is destroyed on a thread of its actor, normally the one that constructed it
  // (thread-affine libraries, CUDA contexts); the user's destructor is the teardown hook.
  actor.reset();
  last.reset();
}

// ---- deadlines and giving up

void ActorPool::Impl::watch_deadlines() {
  std::unique_lock lock(mu);
  while (!watchdog_exit) {
    std::vector<std::pair<ActorTask, std::exception_ptr>> expired;
    std::exception_ptr broken;
    std::optional<Clock::time_point> next;
    const auto now = Clock::now();
    for (auto& slot : slots) {
      for (size_t i = 0; i < slot->lanes.size(); ++i) {
        const Lane& lane = slot->lanes[i];
        if (lane.phase != LanePhase::Calling) continue;
        if (lane.deadline <= now) {
          if (auto e = retire_locked(*slot, i, expired)) broken = e;
        } else if (!next || lane.deadline < *next) {
          next = lane.deadline;
        }
      }
    }
    if (!expired.empty() || broken) {
      lock.unlock();
      if (broken) fail_pool(broken);
      for (auto& [task, error] : expired)
        if (settle(task, error)) in_flight.fetch_sub(1, std::memory_order_acq_rel);
      lock.lock();
      continue;
    }
    if (next)
      watch.wait_until(lock, *next);
    else
      watch.wait(lock);
  }
}

std::exception_ptr ActorPool::Impl::retire_locked(
    ActorSlot& slot, size_t i, std::vector<std::pair<ActorTask, std::exception_ptr>>& expired) {
  Lane& lane = slot.lanes[i];
  auto error = std::make_exception_ptr(CallTimedOut(
      "udf '" + spec->name + "' actor #" + std::to_string(slot.ctx.actor_id) + ": a call on " +
      describe_args(lane.current.args) + " ran past its timeout of " +
      std::to_string(spec->timeout.count()) +
      " ms; the actor was retired (its thread is left to finish the call) and a fresh one "
      "constructed in its place"));
  // The actor this call runs on serves no more calls; the lane's thread still holds it, so
  // nothing is destroyed here, under the lock.
  if (slot.actor && slot.actor.get() == lane.calling_on) {
    slot.past_inits += slot.actor->inits();
    slot.actor.reset();
  }
  std::vector<ActorTask> orphans;
  give_up_locked(slot, i, orphans);
  for (ActorTask& t : orphans) expired.emplace_back(std::move(t), error);
  if (stopping) return nullptr;
  try {
    spawn_lane_locked(slot, i);
  } catch (const std::exception& e) {
    slot.lanes[i].running = false;
    slot.broken = true;
    slot.load = slot.mailbox.capacity();  // it takes no more work
    return std::make_exception_ptr(
        Error(who(slot) + " could not be replaced after a call ran past its timeout: " + e.what()));
  }
  return nullptr;
}

void ActorPool::Impl::give_up_locked(ActorSlot& slot, size_t i, std::vector<ActorTask>& orphans) {
  Lane& lane = slot.lanes[i];
  ++lane.generation;
  lane.running = false;
  if (lane.phase == LanePhase::Calling) {
    orphans.push_back(std::move(lane.current));
    lane.current = ActorTask{};
    --slot.load;
  }
  lane.calling_on = nullptr;
  lane.phase = LanePhase::Idle;
  // It holds the pool's state and its actor by shared_ptr: nothing it touches is freed.
  if (lane.thread.joinable()) lane.thread.detach();
  lane_exited.notify_all();
}

void ActorPool::Impl::give_up_running_locked(std::vector<ActorTask>& orphans,
                                             std::vector<std::shared_ptr<Actor>>& dropped) {
  for (auto& slot : slots) {
    bool busy_lane = false;
    for (const Lane& l : slot->lanes) busy_lane |= l.running && l.phase != LanePhase::Delivering;
    if (!busy_lane) continue;
    if (spec->isolation == Isolation::Process) {
      // A worker can be killed: its call then fails at once and the lane leaves as usual.
      warn(who(*slot) + ": a call was still running " + std::to_string(teardown_grace.count()) +
           " ms after its query ended; killing its worker");
      if (slot->actor) slot->actor->abort();
      if (slot->starting) slot->starting->abort();
      continue;
    }
    warn(who(*slot) + ": a call was still running " + std::to_string(teardown_grace.count()) +
         " ms after its query ended; its thread is left to finish on its own");
    for (size_t i = 0; i < slot->lanes.size(); ++i) {
      const Lane& l = slot->lanes[i];
      if (l.running && l.phase != LanePhase::Delivering) give_up_locked(*slot, i, orphans);
    }
    const bool others = std::any_of(slot->lanes.begin(), slot->lanes.end(),
                                    [](const Lane& l) { return l.running; });
    if (!others && slot->actor) {
      slot->past_inits += slot->actor->inits();
      dropped.push_back(std::move(slot->actor));
    }
  }
}

void ActorPool::Impl::stop_locked() {
  if (stopped) return;
  cancel();
  // Running calls finish and deliver; then each actor's last lane destroys its instance. A
  // call still running after the grace is given up, so a hung UDF never holds teardown.
  std::vector<ActorTask> orphans;
  std::vector<std::shared_ptr<Actor>> dropped;
  std::vector<std::thread> threads;
  std::exception_ptr failed;
  {
    std::unique_lock lock(mu);
    const auto give_up_at = Clock::now() + teardown_grace;
    bool gave_up = false;
    auto running = [&] {
      for (auto& slot : slots)
        for (const Lane& l : slot->lanes)
          if (l.running) return true;
      return false;
    };
    while (running()) {
      if (!gave_up && Clock::now() >= give_up_at) {
        gave_up = true;
        give_up_running_locked(orphans, dropped);
        continue;
      }
      if (gave_up)
        lane_exited.wait(lock);
      else
        lane_exited.wait_until(lock, give_up_at);
    }
    for (auto& slot : slots)
      for (Lane& l : slot->lanes)
        if (l.thread.joinable()) threads.push_back(std::move(l.thread));
    watchdog_exit = true;
    scaler_exit = true;
    failed = failure;
  }
  watch.notify_all();
  scaler_wake.notify_all();
  for (std::thread& t : threads) t.join();
  if (watchdog.joinable()) watchdog.join();
  if (scaler.joinable()) scaler.join();
  // What the pool grew by goes back once those actors are destroyed (just now, above).
  std::vector<int> grown;
  {
    std::lock_guard lock(mu);
    for (auto& slot : slots) {
      if (!slot->grown) continue;
      slot->grown = false;
      grown.push_back(slot->ctx.actor_id);
    }
  }
  if (growth.release)
    for (int id : grown) growth.release(id);
  dropped.clear();
  for (ActorTask& t : orphans) refuse(t, failed);
  stopped = true;
}

}  // namespace ember
