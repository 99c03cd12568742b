// One actor of a pool: owns a constructed UDF instance, in this process or in a worker.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "core/cancelled.h"
#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember {

/// A call that ran past Udf::timeout: its worker was killed, or its thread actor retired.
class CallTimedOut final : public UdfError {
 public:
  using UdfError::UdfError;
};

/// A call that failed for good where it ran: another rank's pool ran it, with that pool's
/// retries, and this is its last outcome. The pool that handed it over runs it no more (its
/// rows are still isolated under OnError::Null and Skip).
class SettledCallError final : public UdfError {
 public:
  using UdfError::UdfError;
};

/// An actor backend. The ActorPool drives each actor from threads of its own: start and stop
/// from one of them, never concurrently with anything else; call from up to
/// spec.max_concurrency of them at once.
class Actor {
 public:
  virtual ~Actor() = default;
  /// Constructs the UDF (the expensive part). Throws UdfError carrying the constructor's
  /// message. Called once, before any call.
  virtual void start() = 0;
  /// Runs one batch of argument columns. Throws UdfError on a failed call (CallTimedOut past
  /// spec.timeout), or RetryAfter (with the call's context in its message) when the UDF asked
  /// for one; the pool decides whether to run it again. A process actor whose worker died or
  /// was killed starts a fresh one at its next call, unless its query is doomed (then
  /// Cancelled).
  virtual Column call(const Batch& args) = 0;
  /// Destroys the UDF instance (its destructor is the teardown hook). Idempotent.
  virtual void stop() = 0;
  /// Ends a call that is running, from any thread, where that is possible (a process actor
  /// kills its worker; the call then fails). Used by a teardown that has waited long enough.
  virtual void abort() {}
  /// Constructions so far (1 normally; more after restarts of a worker); any thread.
  virtual int64_t inits() const = 0;
  /// Whether the instance could serve a call now without a restart: false for a process
  /// actor whose worker has died or been killed. Only while no call runs on it.
  virtual bool alive() { return true; }
  /// Where the instance lives when that is another machine of a cluster: its rank; -1 for an
  /// actor of this process or of a worker process here. Any thread.
  virtual int host() const { return -1; }
};

/// Makes the backend of one actor of a pool, on that actor's thread; `doomed` is the pool's
/// (see make_process_actor). A pool whose makers are empty picks the backend by isolation; the
/// distributed runner passes makers for actors that live on other machines.
using ActorMaker = std::function<std::unique_ptr<Actor>(std::stop_token doomed)>;

/// An actor whose UDF lives in the calling process.
std::unique_ptr<Actor> make_thread_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx);
/// An actor whose UDF lives in a worker process (src/udf/process/). Once `doomed` is requested
/// (the query it serves has failed or is stopping) it starts no worker: one that dies is not
/// replaced, its batch is not retried, and call() throws Cancelled instead.
std::unique_ptr<Actor> make_process_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx,
                                          std::stop_token doomed = {});

}  // namespace ember
