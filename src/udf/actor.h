// One actor of a pool: owns a constructed UDF instance, in this process or in a worker.
#pragma once

#include <memory>
#include <string>

#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember {

/// An actor backend. The ActorPool drives each actor from one dedicated thread of its own, so
/// start/call/stop are never called concurrently on one actor.
class Actor {
 public:
  virtual ~Actor() = default;
  /// Constructs the UDF (the expensive part). Throws UdfError carrying the constructor's
  /// message. Called once, before any call.
  virtual void start() = 0;
  /// Runs one batch of argument columns. Throws UdfError on a failed call; a process actor
  /// restarts a dead worker and retries up to spec.max_retries times before throwing.
  virtual Column call(const Batch& args) = 0;
  /// Destroys the UDF instance (its destructor is the teardown hook). Idempotent.
  virtual void stop() = 0;
  /// Constructions so far (1 normally; more after restarts of a dead worker).
  virtual int64_t inits() const = 0;
};

/// An actor whose UDF lives in the calling process.
std::unique_ptr<Actor> make_thread_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx);
/// An actor whose UDF lives in a worker process (src/udf/process/).
std::unique_ptr<Actor> make_process_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx);

}  // namespace ember
