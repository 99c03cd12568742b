// An actor whose UDF instance lives in this process, driven by its pool's actor thread.
#include <exception>
#include <memory>
#include <string>

#include "udf/actor.h"
#include "udf/udf_call.h"

namespace ember {
namespace {

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

class ThreadActor final : public Actor {
 public:
  ThreadActor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx)
      : spec_(std::move(spec)), ctx_(std::move(ctx)) {}
  ~ThreadActor() override { stop(); }

  void start() override {
    if (instance_) return;
    try {
      instance_ = spec_->factory(spec_->init_args, ctx_);
    } catch (...) {
      throw UdfError("udf '" + spec_->name + "' actor #" + std::to_string(ctx_.actor_id) +
                     " failed to initialise: " + what_of(std::current_exception()));
    }
    ++inits_;
  }

  Column call(const Batch& args) override {
    if (!instance_)
      throw UdfError("udf '" + spec_->name + "' actor #" + std::to_string(ctx_.actor_id) +
                     " was called before it started");
    try {
      return instance_->call(args);
    } catch (const RetryAfter& r) {
      throw RetryAfter(r.delay(), "udf '" + spec_->name + "' failed on " + describe_args(args) +
                                      ": " + r.what());
    } catch (...) {
      throw UdfError("udf '" + spec_->name + "' failed on " + describe_args(args) + ": " +
                     what_of(std::current_exception()));
    }
  }

  /// Runs the user's destructor, which is the UDF's teardown hook.
  void stop() override { instance_.reset(); }

  int64_t inits() const override { return inits_; }

 private:
  std::shared_ptr<const UdfSpec> spec_;
  ActorContext ctx_;
  std::unique_ptr<detail::UdfInstance> instance_;
  int64_t inits_ = 0;
};

}  // namespace

std::unique_ptr<Actor> make_thread_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx) {
  return std::make_unique<ThreadActor>(std::move(spec), std::move(ctx));
}

}  // namespace ember
