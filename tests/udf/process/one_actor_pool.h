// Runs batches one at a time through a pool of one process actor, as a query would: the pool,
// not the actor, retries a batch whose worker died, with its backoff.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "udf/actor_pool.h"
#include "worker_test_kit.h"

namespace ember::test {

class OneActorPool {
 public:
  /// Starts the pool; `zero_backoff` makes retries due at once (the tests time nothing).
  explicit OneActorPool(std::shared_ptr<const UdfSpec> spec, bool zero_backoff = true)
      : pool_(no_backoff(std::move(spec), zero_backoff), {actor_context(0)}) {
    pool_.start();
  }

  /// Dispatches `args` and waits for its outcome (at most a minute: a hang fails the test).
  CallResult run(Batch args) {
    auto state = std::make_shared<State>();
    pool_.dispatch(std::move(args), [state](CallResult r) {
      std::lock_guard lock(state->mu);
      state->result = std::move(r);
      state->cv.notify_all();
    });
    std::unique_lock lock(state->mu);
    if (!state->cv.wait_for(lock, std::chrono::seconds(60),
                            [&] { return state->result.has_value(); }))
      return std::make_exception_ptr(Error("no outcome within 60 s"));
    return std::move(*state->result);
  }

  ActorPool& pool() { return pool_; }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<CallResult> result;
  };
  static std::shared_ptr<const UdfSpec> no_backoff(std::shared_ptr<const UdfSpec> spec, bool zero) {
    if (!zero) return spec;
    auto s = std::make_shared<UdfSpec>(*spec);
    s->retry_initial = s->retry_max = std::chrono::milliseconds(0);
    return s;
  }
  ActorPool pool_;
};

/// The column of a successful outcome; the error's message (as UdfError) otherwise.
inline Column column_of(const CallResult& r) {
  if (const auto* c = std::get_if<Column>(&r)) return *c;
  std::rethrow_exception(std::get<std::exception_ptr>(r));
}

/// The message of a failed outcome ("" for a column).
inline std::string message_of(const CallResult& r) {
  if (std::holds_alternative<Column>(r)) return "";
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(r));
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace ember::test
