// ActorPool: N actors, each driven by max_concurrency threads of its own ("lanes", see
// actor_pool_lanes.cpp), serving one stateful UDF. This file: dispatch, the outcome of each
// call (retry, deliver, fail the pool), start, cancel and figures.
//
// Locking: one pool mutex guards every mailbox, the backlog, the lanes' states and the
// lifecycle flags; each actor's lanes sleep on a condition variable of the actor's. User code
// (constructors, calls, destructors) and `done` callbacks always run with no pool lock held.
//
// A call that fails is run again as its FailurePolicy says (udf/failure_policy.h): it waits
// out its backoff in the pool's delayed queue, not on an actor, and the first free lane takes
// it once it is due.
// A batch that still fails is delivered as failed. Under OnError::Raise it fails the query, so
// from then on the pool runs nothing: queued work completes with that error without reaching
// an actor, and `doomed` tells process actors to start no more workers. Under Null and Skip
// the pool keeps serving: the caller isolates the failing rows.
#include "udf/actor_pool.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "udf/actor_pool_impl.h"

namespace ember {
namespace {
using Clock = PoolClock;
}  // namespace

// ---- outcomes

bool ActorPool::Impl::retry_later(ActorTask& task, Clock::duration wait) {
  const Clock::time_point due = Clock::now() + wait;
  {
    std::lock_guard lock(mu);
    if (stopping || failure) return false;
    ++task.retries;
    delayed.emplace(due, std::move(task));
  }
  retries.fetch_add(1, std::memory_order_relaxed);
  // Idle lanes sleep without a deadline: wake them to take up the new one.
  for (auto& s : slots) s->wake.notify_one();
  return true;
}

bool ActorPool::Impl::settle(ActorTask& task, CallResult result) {
  std::vector<ActorTask> unrun;
  std::exception_ptr failure;
  if (auto* error = std::get_if<std::exception_ptr>(&result)) {
    const FailureKind kind = FailureKind::of(*error);
    if (kind.timeout) timeouts.fetch_add(1, std::memory_order_relaxed);
    if (policy.should_retry(kind, task.retries) &&
        retry_later(task, policy.backoff(task.retries, kind.retry_after)))
      return false;
    *error = policy.final_error(*error, kind, task.retries);
    // Under Null and Skip a failed batch is the caller's to isolate, not the query's end.
    if (!policy.isolates()) failure = record_failure(*error, kind.cancelled, unrun);
    // A call abandoned because the pool had failed reports that failure, so that whichever
    // batch the query looks at first, it sees the real cause rather than a cancellation.
    if (failure && kind.cancelled) result = failure;
  }
  task.args = Batch();  // let the input go before the consumer runs
  auto done = std::move(task.done);
  done(std::move(result));
  for (ActorTask& t : unrun) refuse(t, failure);
  return true;
}

std::vector<ActorTask> ActorPool::Impl::take_queued_locked() {
  std::vector<ActorTask> queued;
  for (auto& slot : slots) {
    while (!slot->mailbox.empty()) {
      queued.push_back(slot->mailbox.pop());
      --slot->load;
    }
  }
  for (ActorTask& t : backlog) queued.push_back(std::move(t));
  backlog.clear();
  for (auto& [due, t] : delayed) queued.push_back(std::move(t));
  delayed.clear();
  return queued;
}

std::exception_ptr ActorPool::Impl::record_failure(const std::exception_ptr& error, bool cancelled,
                                                   std::vector<ActorTask>& unrun) {
  {
    std::lock_guard lock(mu);
    if (failure || cancelled) return failure;
    failure = error;
    unrun = take_queued_locked();
  }
  doomed.request_stop();
  announce_failure(error);
  return error;
}

void ActorPool::Impl::announce_failure(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    return;  // the query is stopping already: there is nothing to tell it
  } catch (...) {
  }
  std::lock_guard lock(on_failure_mu);
  if (on_failure) on_failure(error);
}

void ActorPool::Impl::fail_pool(const std::exception_ptr& error) {
  std::vector<ActorTask> unrun;
  const std::exception_ptr failed = record_failure(error, false, unrun);
  for (ActorTask& t : unrun) refuse(t, failed);
}

// ---- dispatch

ActorSlot* ActorPool::Impl::least_loaded(bool foreign) {
  ActorSlot* own = nullptr;
  ActorSlot* lent = nullptr;
  const size_t n = slots.size();
  for (size_t i = 0; i < n; ++i) {
    ActorSlot* s = slots[(next_pick + i) % n].get();
    if (!takes_work(*s) || s->load >= s->mailbox.capacity()) continue;
    ActorSlot*& best = is_spare(*s) ? lent : own;
    if (!best || s->load < best->load) best = s;
  }
  next_pick = (next_pick + 1) % n;
  // Local first: a lent actor takes a batch only when no own actor could start it now.
  if (own != nullptr && own->load < static_cast<int>(own->lanes.size())) return own;
  if (lent != nullptr) return lent;
  // Another rank's batch lent here (a pool kept to its own actors serves other ranks' only
  // so) does not queue behind this rank's busy actors: it waits in the pool for whichever
  // actor frees first.
  return foreign && own_actors_only ? nullptr : own;
}

void ActorPool::Impl::refuse(ActorTask& task, const std::exception_ptr& failure) {
  auto done = std::move(task.done);
  task.args = Batch();
  done(failure ? failure
               : std::make_exception_ptr(
                     Cancelled("udf '" + spec->name + "': its actor pool stopped")));
  in_flight.fetch_sub(1, std::memory_order_acq_rel);
}

ActorPool::ActorPool(std::shared_ptr<const UdfSpec> spec, std::vector<ActorContext> actors,
                     std::vector<ActorMaker> makers)
    : spec_(std::move(spec)), impl_(std::make_shared<Impl>()) {
  if (!spec_ || !spec_->stateful || !spec_->factory)
    throw InvalidArgument("an actor pool serves a stateful udf (Udf::cls<T>)");
  if (actors.empty()) {
    // No admission happened (tests, tools): one context per configured actor.
    for (int i = 0; i < spec_->concurrency; ++i)
      actors.push_back(ActorContext{i, {}, spec_->num_cpus, spec_->memory_bytes});
  }
  if (actors.empty())
    throw InvalidArgument("udf '" + spec_->name + "': a pool needs at least 1 actor");
  if (!makers.empty() && makers.size() != actors.size())
    throw InvalidArgument("udf '" + spec_->name + "': one actor maker per actor, or none");
  impl_->spec = spec_;
  impl_->policy = FailurePolicy(*spec_);
  // max_concurrency lanes per actor, whatever its isolation: a worker process has as many.
  const int lanes = std::max(1, spec_->max_concurrency);
  int next_id = 0;
  for (size_t i = 0; i < actors.size(); ++i) {
    next_id = std::max(next_id, actors[i].actor_id + 1);
    impl_->slots.push_back(std::make_unique<ActorSlot>(std::move(actors[i]), lanes));
    if (!makers.empty()) impl_->slots.back()->maker = std::move(makers[i]);
  }
  impl_->min_actors = impl_->active_actors = impl_->peak_actors =
      static_cast<int>(impl_->slots.size());
  // An autoscaling pool has a slot for every actor it may add, inactive until it grows (all
  // made now: the slots never move, so figures are read without the lock).
  const int extra = makers.empty() ? spec_->max_actors - spec_->concurrency : 0;
  for (int k = 0; k < extra; ++k) {
    ActorContext ctx{next_id + k, {}, spec_->num_cpus, spec_->memory_bytes};
    impl_->slots.push_back(std::make_unique<ActorSlot>(std::move(ctx), lanes));
    impl_->slots.back()->active = false;
  }
}

ActorPool::~ActorPool() { stop(); }

void ActorPool::start() {
  launch();
  try {
    wait_started();
  } catch (...) {
    stop();  // destroys the actors that did construct
    throw;
  }
}

void ActorPool::launch() {
  Impl& p = *impl_;
  std::unique_lock lifecycle(p.lifecycle_mu);
  {
    std::lock_guard lock(p.mu);
    if (p.stopping) throw Cancelled("udf '" + spec_->name + "': its actor pool was stopped");
  }
  if (p.started) return;
  p.started = true;
  try {
    std::lock_guard lock(p.mu);
    for (auto& slot : p.slots) {
      if (!slot->active) continue;
      for (size_t i = 0; i < slot->lanes.size(); ++i) p.spawn_lane_locked(*slot, i);
      ++p.launched_actors;
    }
    // A process actor bounds its calls itself (it can kill its worker); a thread actor needs
    // someone else to notice.
    if (spec_->timeout.count() > 0 && spec_->isolation == Isolation::Thread)
      p.watchdog = std::thread([self = impl_] { self->watch_deadlines(); });
    if (static_cast<int>(p.slots.size()) > p.min_actors)
      p.scaler = std::thread([self = impl_] { self->scale(); });
  } catch (const std::exception& e) {
    p.stop_locked();
    throw UdfError("udf '" + spec_->name + "': could not start an actor thread: " + e.what());
  }
}

void ActorPool::wait_started() {
  Impl& p = *impl_;
  std::exception_ptr error;
  {
    // Every lane of an active slot reports its actor's first construction, or that it gave
    // up before constructing, so this never waits for a pool that will not start.
    std::unique_lock lock(p.mu);
    p.all_started.wait(lock, [&] { return p.starts_reported >= p.launched_actors; });
    error = p.first_start_error;
  }
  if (error) std::rethrow_exception(error);
}

bool ActorPool::failed() const {
  std::lock_guard lock(impl_->mu);
  return impl_->failure != nullptr;
}

void ActorPool::dispatch(Batch args, std::function<void(CallResult)> done, bool ahead) {
  impl_->dispatch_task(ActorTask{std::move(args), std::move(done)}, ahead);
}

void ActorPool::dispatch_foreign(Batch args, std::function<void(CallResult)> done) {
  ActorTask task{std::move(args), std::move(done)};
  task.foreign = true;
  impl_->dispatch_task(std::move(task), false);
}

void ActorPool::Impl::dispatch_task(ActorTask task, bool ahead) {
  in_flight.fetch_add(1, std::memory_order_acq_rel);
  std::unique_lock lock(mu);
  if (stopping || failure) {
    std::exception_ptr failed = failure;
    lock.unlock();
    refuse(task, failed);
    return;
  }
  if (ActorSlot* target = least_loaded(task.foreign)) {
    target->mailbox.push(std::move(task));
    ++target->load;
    lock.unlock();
    target->wake.notify_one();
  } else if (ahead) {
    task.queued = Clock::now();
    backlog.push_front(std::move(task));
  } else {
    task.queued = Clock::now();
    backlog.push_back(std::move(task));
  }
}

void ActorPool::keep_to_own_actors(bool on) {
  std::lock_guard lock(impl_->mu);
  const auto& slots = impl_->slots;
  const bool has_own =
      std::any_of(slots.begin(), slots.end(), [](const auto& s) { return s->maker == nullptr; });
  impl_->own_actors_only = on && has_own;
  for (const auto& s : slots) s->lent = false;
  // Every actor may take what waits in the pool again.
  if (!impl_->own_actors_only)
    for (const auto& s : slots) s->wake.notify_all();
}

void ActorPool::set_spares(const std::vector<int>& actor_ids) {
  std::lock_guard lock(impl_->mu);
  for (int id : actor_ids) impl_->slots.at(static_cast<size_t>(id))->spare = true;
}

void ActorPool::lend_spares(int host) {
  std::lock_guard lock(impl_->mu);
  for (const auto& s : impl_->slots) {
    if (!impl_->is_spare(*s) || s->lent) continue;
    if (host != kAnyHost) {
      const Actor* actor = s->actor ? s->actor.get() : s->starting.get();
      if (actor == nullptr || actor->host() != host) continue;
    }
    s->lent = true;
    // It may take what waits in the pool now.
    s->wake.notify_all();
  }
}

int64_t ActorPool::batches_lent() const {
  return impl_->lent_batches.load(std::memory_order_relaxed);
}

void ActorPool::cancel() { impl_->cancel(); }

void ActorPool::stop() {
  std::lock_guard lifecycle(impl_->lifecycle_mu);
  impl_->stop_locked();
}

void ActorPool::set_teardown_grace(std::chrono::milliseconds grace) {
  std::lock_guard lock(impl_->mu);
  impl_->teardown_grace = grace;
}

std::chrono::milliseconds ActorPool::teardown_grace() const {
  std::lock_guard lock(impl_->mu);
  return impl_->teardown_grace;
}

void ActorPool::give_up_running() {
  Impl& p = *impl_;
  std::vector<ActorTask> orphans;
  std::vector<std::shared_ptr<Actor>> dropped;
  std::exception_ptr failure;
  {
    std::lock_guard lock(p.mu);
    p.give_up_running_locked(orphans, dropped);
    failure = p.failure;
  }
  dropped.clear();  // a dropped actor's destructor runs with no lock held
  for (ActorTask& t : orphans) p.refuse(t, failure);
}

void ActorPool::set_on_failure(std::function<void(const std::exception_ptr&)> hook) {
  std::lock_guard lock(impl_->on_failure_mu);
  impl_->on_failure = std::move(hook);
}

void ActorPool::Impl::cancel() {
  std::vector<ActorTask> queued;
  std::exception_ptr failure;
  {
    std::lock_guard lock(mu);
    stopping = true;
    queued = take_queued_locked();
    failure = this->failure;
  }
  doomed.request_stop();
  for (auto& slot : slots) slot->wake.notify_all();
  for (ActorTask& t : queued) refuse(t, failure);
}

bool ActorPool::reusable() const {
  Impl& p = *impl_;
  {
    std::lock_guard lock(p.mu);
    if (p.stopping || p.failure) return false;
  }
  // A lane counts its batch out just after `done` returns, so a query that has every result
  // may still see it in flight for a moment; a call truly still running is not waited for long.
  const auto give_up = PoolClock::now() + std::chrono::seconds(1);
  while (p.in_flight.load(std::memory_order_acquire) != 0) {
    if (PoolClock::now() >= give_up) return false;
    std::this_thread::yield();
  }
  std::lock_guard lock(p.mu);
  if (p.stopping || p.failure || !p.backlog.empty() || !p.delayed.empty()) return false;
  // With nothing in flight every lane is idle, so asking an actor is safe.
  return std::all_of(p.slots.begin(), p.slots.end(), [](const auto& slot) {
    return !slot->active || (!slot->broken && slot->actor && slot->actor->alive());
  });
}

void ActorPool::set_growth(Growth growth) {
  std::lock_guard lifecycle(impl_->lifecycle_mu);
  if (!impl_->started) impl_->growth = std::move(growth);
}

void ActorPool::set_scaling(std::chrono::milliseconds grow_after,
                            std::chrono::milliseconds shrink_after) {
  std::lock_guard lock(impl_->mu);
  impl_->grow_after = grow_after;
  impl_->shrink_after = shrink_after;
}

int ActorPool::active_actors() const {
  std::lock_guard lock(impl_->mu);
  return impl_->active_actors;
}

int ActorPool::num_actors() const { return static_cast<int>(impl_->slots.size()); }

int ActorPool::busy_actors() const { return impl_->busy.load(std::memory_order_relaxed); }

int64_t ActorPool::in_flight() const { return impl_->in_flight.load(std::memory_order_acquire); }

UdfStats ActorPool::stats() const {
  Impl& p = *impl_;
  UdfStats s;
  s.name = spec_->name;
  s.actors = p.min_actors;
  s.scale_ups = p.scale_ups.load(std::memory_order_relaxed);
  s.scale_downs = p.scale_downs.load(std::memory_order_relaxed);
  int64_t init_ns = 0, busy_ns = 0;
  {
    std::lock_guard lock(p.mu);
    s.peak_actors = p.peak_actors;
    for (const auto& slot : p.slots)
      s.inits += slot->past_inits + (slot->actor ? slot->actor->inits() : 0);
  }
  for (const auto& slot : p.slots) {
    s.batches += slot->batches.load(std::memory_order_relaxed);
    s.rows += slot->rows.load(std::memory_order_relaxed);
    init_ns += slot->init_ns.load(std::memory_order_relaxed);
    busy_ns += slot->busy_ns.load(std::memory_order_relaxed);
  }
  s.retries = p.retries.load(std::memory_order_relaxed);
  s.timeouts = p.timeouts.load(std::memory_order_relaxed);
  s.init_seconds = static_cast<double>(init_ns) * 1e-9;
  s.busy_seconds = static_cast<double>(busy_ns) * 1e-9;
  return s;
}

std::vector<ActorPool::ActorFigures> ActorPool::actor_figures() const {
  Impl& p = *impl_;
  std::vector<ActorFigures> out;
  std::lock_guard lock(p.mu);
  for (const auto& slot : p.slots) {
    out.push_back({slot->past_inits + (slot->actor ? slot->actor->inits() : 0),
                   slot->rows.load(std::memory_order_relaxed),
                   static_cast<double>(slot->busy_ns.load(std::memory_order_relaxed)) * 1e-9});
  }
  return out;
}

}  // namespace ember
