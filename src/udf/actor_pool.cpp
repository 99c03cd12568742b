// ActorPool: N actors, each driven by one thread of its own, serving one stateful UDF.
//
// Locking: one pool mutex guards every mailbox, the backlog and the lifecycle flags; each
// actor sleeps on a condition variable of its own, so a dispatch wakes exactly the actor it
// chose. User code (constructors, calls, destructors) and `done` callbacks always run with
// no pool lock held.
//
// A call that fails is run again up to max_retries times: it waits out its backoff in the
// pool's delayed queue, not on an actor, and the first free actor takes it once it is due.
// A batch that still fails is delivered as failed. Under OnError::Raise it fails the query, so
// from then on the pool runs nothing: queued work completes with that error without reaching
// an actor, and `doomed` tells process actors to start no more workers. Under Null and Skip
// the pool keeps serving: the caller isolates the failing rows.
#include "udf/actor_pool.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <stop_token>
#include <thread>

#include "udf/actor.h"
#include "udf/actor_mailbox.h"
#include "udf/udf_call.h"

namespace ember {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nanos_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

/// The state of one actor as the pool sees it. Its own cache line: actors run in parallel.
struct alignas(64) ActorSlot {
  explicit ActorSlot(ActorContext c) : ctx(std::move(c)) {}
  ActorContext ctx;
  ActorMaker maker;  // null: by the spec's isolation
  std::condition_variable wake;
  ActorMailbox mailbox;  // guarded by Impl::mu
  int load = 0;          // batches handed to this actor and not finished; guarded by Impl::mu
  std::thread thread;    // guarded by Impl::lifecycle_mu
  // Figures written only by this actor's thread; stats() sums them over actors.
  std::atomic<int64_t> inits{0}, batches{0}, rows{0}, busy_ns{0}, init_ns{0}, actor_retries{0};
};

}  // namespace

struct ActorPool::Impl {
  std::shared_ptr<const UdfSpec> spec;
  std::vector<std::unique_ptr<ActorSlot>> slots;

  std::mutex mu;
  std::condition_variable all_started;
  std::deque<ActorTask> backlog;  // guarded by mu
  /// Failed calls waiting out their backoff, by when they are due; guarded by mu.
  std::multimap<Clock::time_point, ActorTask> delayed;
  bool stopping = false;                 // guarded by mu; set by cancel() and stop()
  std::exception_ptr failure;            // guarded by mu; the first batch that failed
  int starts_reported = 0;               // guarded by mu
  std::exception_ptr first_start_error;  // guarded by mu
  size_t next_pick = 0;                  // guarded by mu; rotates ties between actors

  /// Serialises start() and stop(), which create and join the actor threads.
  std::mutex lifecycle_mu;
  bool started = false;  // guarded by lifecycle_mu
  bool stopped = false;  // guarded by lifecycle_mu

  /// Requested at the first failure or at cancel(): process actors then start no worker.
  std::stop_source doomed;

  alignas(64) std::atomic<int64_t> in_flight{0};
  std::atomic<int> busy{0};
  std::atomic<int64_t> retries{0};  // calls the pool ran again

  void serve(ActorSlot& slot);
  void serve_calls(ActorSlot& slot, Actor& actor);
  /// Runs `task` and delivers it, or, when it failed and has retries left, queues it in
  /// `delayed` and returns false.
  bool run_task(ActorSlot& slot, Actor& actor, ActorTask& task);
  /// Queues a failed `task` to run again after its backoff; false if the pool will not (it is
  /// stopping or has failed).
  bool retry_later(ActorTask& task, const std::exception_ptr& error);
  ActorSlot* least_loaded();
  /// Moves every queued task (mailboxes and backlog) out. Requires mu.
  std::vector<ActorTask> take_queued_locked();
  /// Records `error` of a finished batch as the pool's failure unless it is a Cancelled or one
  /// is recorded already; the first time, moves what is queued into `unrun` for refuse().
  /// Returns the pool's failure (null if none).
  std::exception_ptr record_failure(const std::exception_ptr& error, std::vector<ActorTask>& unrun);
  void cancel();
  void stop_locked();
  /// Completes a task that will not run: with `failure`, else Cancelled.
  void refuse(ActorTask& task, const std::exception_ptr& failure);
};

namespace {

bool is_cancelled(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// Whether the pool runs a call that failed with `error` again: a throw from the UDF or a bad
/// result, not a cancellation nor a dead worker the actor has already retried itself.
bool retryable(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    return false;
  } catch (const RetriedFailure&) {
    return false;
  } catch (const RetryAfter&) {
    return true;
  } catch (const UdfError&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// The wait before retry number `retry` (0-based) of a call that failed with `error`: what a
/// RetryAfter asked for, else initial x 2^retry capped at max, with "equal jitter" (between
/// half and all of it) so that batches failing together do not come back together.
Clock::duration backoff(const UdfSpec& spec, int retry, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RetryAfter& r) {
    return r.delay();
  } catch (...) {
  }
  const double initial = static_cast<double>(spec.retry_initial.count());
  const double ceiling = static_cast<double>(spec.retry_max.count());
  const double full = std::min(ceiling, initial * std::pow(2.0, std::min(retry, 62)));
  thread_local std::minstd_rand random{std::random_device{}()};
  const double jitter = std::uniform_real_distribution<double>(0.5, 1.0)(random);
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::milli>(full * jitter));
}

/// The error a batch is delivered with once its retries are spent: a RetryAfter becomes the
/// UdfError it stands for, and a retried failure says how often it was tried.
std::exception_ptr final_error(const std::exception_ptr& error, int retries) {
  std::string message;
  try {
    std::rethrow_exception(error);
  } catch (const RetryAfter& r) {
    message = r.what();
  } catch (const UdfError& e) {
    if (retries == 0) return error;
    message = e.what();
  } catch (...) {
    return error;
  }
  if (retries > 0)
    message +=
        "; gave up after " + std::to_string(retries) + (retries == 1 ? " retry" : " retries");
  return std::make_exception_ptr(UdfError(message));
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

}  // namespace

// ---- actor threads

void ActorPool::Impl::serve(ActorSlot& slot) {
  std::unique_ptr<Actor> actor;
  std::exception_ptr error;
  const auto t0 = Clock::now();
  try {
    if (slot.maker)
      actor = slot.maker(doomed.get_token());
    else
      actor = spec->isolation == Isolation::Process
                  ? make_process_actor(spec, slot.ctx, doomed.get_token())
                  : make_thread_actor(spec, slot.ctx);
    actor->start();
  } catch (...) {
    error = std::current_exception();
  }
  slot.init_ns.fetch_add(nanos_since(t0), std::memory_order_relaxed);
  if (actor) slot.inits.store(actor->inits(), std::memory_order_relaxed);
  {
    std::lock_guard lock(mu);
    ++starts_reported;
    if (error && !first_start_error) first_start_error = error;
  }
  all_started.notify_all();
  if (!error) serve_calls(slot, *actor);
  // The instance is destroyed on the thread that constructed it (thread-affine libraries,
  // CUDA contexts); the user's destructor is the teardown hook.
  if (actor) actor->stop();
}

void ActorPool::Impl::serve_calls(ActorSlot& slot, Actor& actor) {
  std::unique_lock lock(mu);
  for (;;) {
    if (stopping) return;  // cancel() has refused whatever was still queued
    ActorTask task;
    // A retry that is due goes first: the batches behind it in its partition wait for it.
    if (!delayed.empty() && delayed.begin()->first <= Clock::now()) {
      task = std::move(delayed.begin()->second);
      delayed.erase(delayed.begin());
      ++slot.load;
    } else if (!slot.mailbox.empty()) {
      task = slot.mailbox.pop();
    } else {
      // Idle: sleep until woken, or until the earliest retry is due.
      if (delayed.empty())
        slot.wake.wait(lock);
      else
        slot.wake.wait_until(lock, delayed.begin()->first);
      continue;
    }
    lock.unlock();
    const bool delivered = run_task(slot, actor, task);
    lock.lock();
    --slot.load;
    if (delivered) in_flight.fetch_sub(1, std::memory_order_acq_rel);
    if (!stopping && !backlog.empty() && slot.load < ActorMailbox::kCapacity) {
      slot.mailbox.push(std::move(backlog.front()));
      backlog.pop_front();
      ++slot.load;
    }
  }
}

bool ActorPool::Impl::retry_later(ActorTask& task, const std::exception_ptr& error) {
  const Clock::time_point due = Clock::now() + backoff(*spec, task.retries, error);
  {
    std::lock_guard lock(mu);
    if (stopping || failure) return false;
    ++task.retries;
    delayed.emplace(due, std::move(task));
  }
  retries.fetch_add(1, std::memory_order_relaxed);
  // Idle actors sleep without a deadline: wake them to take up the new one.
  for (auto& s : slots) s->wake.notify_one();
  return true;
}

bool ActorPool::Impl::run_task(ActorSlot& slot, Actor& actor, ActorTask& task) {
  busy.fetch_add(1, std::memory_order_relaxed);
  const auto t0 = Clock::now();
  CallResult result = call_checked(*spec, actor, task.args);
  slot.busy_ns.fetch_add(nanos_since(t0), std::memory_order_relaxed);
  busy.fetch_sub(1, std::memory_order_relaxed);
  if (std::holds_alternative<Column>(result)) {
    slot.batches.fetch_add(1, std::memory_order_relaxed);
    slot.rows.fetch_add(task.args.num_rows(), std::memory_order_relaxed);
  }
  slot.inits.store(actor.inits(), std::memory_order_relaxed);  // a process actor may restart
  slot.actor_retries.store(actor.retries(), std::memory_order_relaxed);
  std::vector<ActorTask> unrun;
  std::exception_ptr failure;
  if (auto* error = std::get_if<std::exception_ptr>(&result)) {
    if (task.retries < spec->max_retries && retryable(*error) && retry_later(task, *error))
      return false;
    *error = final_error(*error, task.retries);
    // Under Null and Skip a failed batch is the caller's to isolate, not the query's end.
    if (spec->on_error == OnError::Raise) failure = record_failure(*error, unrun);
    // A call abandoned because the pool had failed reports that failure, so that whichever
    // batch the query looks at first, it sees the real cause rather than a cancellation.
    if (failure && is_cancelled(*error)) result = failure;
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

std::exception_ptr ActorPool::Impl::record_failure(const std::exception_ptr& error,
                                                   std::vector<ActorTask>& unrun) {
  {
    std::lock_guard lock(mu);
    if (failure || is_cancelled(error)) return failure;
    failure = error;
    unrun = take_queued_locked();
  }
  doomed.request_stop();
  return error;
}

// ---- dispatch

ActorSlot* ActorPool::Impl::least_loaded() {
  ActorSlot* best = nullptr;
  const size_t n = slots.size();
  for (size_t i = 0; i < n; ++i) {
    ActorSlot* s = slots[(next_pick + i) % n].get();
    if (s->load < ActorMailbox::kCapacity && (!best || s->load < best->load)) best = s;
  }
  next_pick = (next_pick + 1) % n;
  return best;
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
    : spec_(std::move(spec)), impl_(std::make_unique<Impl>()) {
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
  for (size_t i = 0; i < actors.size(); ++i) {
    impl_->slots.push_back(std::make_unique<ActorSlot>(std::move(actors[i])));
    if (!makers.empty()) impl_->slots.back()->maker = std::move(makers[i]);
  }
}

ActorPool::~ActorPool() { stop(); }

void ActorPool::start() {
  Impl& p = *impl_;
  std::unique_lock lifecycle(p.lifecycle_mu);
  {
    std::lock_guard lock(p.mu);
    if (p.stopping) throw Cancelled("udf '" + spec_->name + "': its actor pool was stopped");
  }
  if (p.started) return;
  p.started = true;
  try {
    for (auto& slot : p.slots) slot->thread = std::thread([&p, s = slot.get()] { p.serve(*s); });
  } catch (const std::exception& e) {
    p.stop_locked();
    throw UdfError("udf '" + spec_->name + "': could not start an actor thread: " + e.what());
  }
  // Constructors run in parallel, one per actor thread; this waits for the slowest.
  std::exception_ptr error;
  {
    std::unique_lock lock(p.mu);
    p.all_started.wait(lock, [&] { return p.starts_reported == static_cast<int>(p.slots.size()); });
    error = p.first_start_error;
  }
  if (!error) return;
  p.stop_locked();  // destroys the actors that did construct
  try {
    std::rethrow_exception(error);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw UdfError("udf '" + spec_->name + "' failed to start an actor: " + e.what());
  }
}

void ActorPool::dispatch(Batch args, std::function<void(CallResult)> done) {
  Impl& p = *impl_;
  p.in_flight.fetch_add(1, std::memory_order_acq_rel);
  ActorTask task{std::move(args), std::move(done)};
  std::unique_lock lock(p.mu);
  if (p.stopping || p.failure) {
    std::exception_ptr failure = p.failure;
    lock.unlock();
    p.refuse(task, failure);
    return;
  }
  if (ActorSlot* target = p.least_loaded()) {
    target->mailbox.push(std::move(task));
    ++target->load;
    lock.unlock();
    target->wake.notify_one();
  } else {
    p.backlog.push_back(std::move(task));
  }
}

void ActorPool::cancel() { impl_->cancel(); }

void ActorPool::stop() {
  std::lock_guard lifecycle(impl_->lifecycle_mu);
  impl_->stop_locked();
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

void ActorPool::Impl::stop_locked() {
  if (stopped) return;
  cancel();
  // Running calls finish and deliver; then each thread destroys its instance and exits.
  for (auto& slot : slots)
    if (slot->thread.joinable()) slot->thread.join();
  stopped = true;
}

int ActorPool::num_actors() const { return static_cast<int>(impl_->slots.size()); }

int ActorPool::busy_actors() const { return impl_->busy.load(std::memory_order_relaxed); }

int64_t ActorPool::in_flight() const { return impl_->in_flight.load(std::memory_order_acquire); }

UdfStats ActorPool::stats() const {
  const Impl& p = *impl_;
  UdfStats s;
  s.name = spec_->name;
  s.actors = num_actors();
  int64_t init_ns = 0, busy_ns = 0;
  for (const auto& slot : p.slots) {
    s.inits += slot->inits.load(std::memory_order_relaxed);
    s.batches += slot->batches.load(std::memory_order_relaxed);
    s.rows += slot->rows.load(std::memory_order_relaxed);
    s.retries += slot->actor_retries.load(std::memory_order_relaxed);
    init_ns += slot->init_ns.load(std::memory_order_relaxed);
    busy_ns += slot->busy_ns.load(std::memory_order_relaxed);
  }
  s.retries += p.retries.load(std::memory_order_relaxed);
  s.init_seconds = static_cast<double>(init_ns) * 1e-9;
  s.busy_seconds = static_cast<double>(busy_ns) * 1e-9;
  return s;
}

std::vector<ActorPool::ActorFigures> ActorPool::actor_figures() const {
  std::vector<ActorFigures> out;
  for (const auto& slot : impl_->slots) {
    out.push_back({slot->inits.load(std::memory_order_relaxed),
                   slot->rows.load(std::memory_order_relaxed),
                   static_cast<double>(slot->busy_ns.load(std::memory_order_relaxed)) * 1e-9});
  }
  return out;
}

}  // namespace ember
