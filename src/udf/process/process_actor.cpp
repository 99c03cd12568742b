// An actor whose UDF lives in a worker process: batches cross through shared memory, a call
// past spec.timeout kills its worker, a worker that died or was killed is replaced at the next
// call while the query can still succeed (the pool decides whether that call is a retry, with
// its backoff), and errors come back as UdfError naming the UDF, the actor and what happened.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "udf/actor.h"
#include "udf/process/column_transfer.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"
#include "udf/process/worker_entry.h"
#include "udf/process/worker_process.h"
#include "udf/udf_call.h"

namespace ember {

namespace {

using process::ControlChannel;
using process::MessageReader;
using process::Op;
using process::UniqueFd;

/// From exec to ember::init: static initialisers and the start of main(), nothing slow. A
/// worker that never gets there (main() does something else first) fails after this.
constexpr auto kStartupDeadline = std::chrono::seconds(60);
/// How long a stopping worker may spend in the UDF's destructor before it is killed.
constexpr auto kStopGrace = std::chrono::seconds(10);
/// A worker whose socket closed is exiting; this only bounds a process stuck in the kernel.
constexpr auto kDeathGrace = std::chrono::seconds(5);
/// Results at least this large are used in place in the worker's region (no second copy);
/// smaller ones are copied out so the region is free again at once.
constexpr int64_t kWrapResultBytes = int64_t{1} << 20;
/// How long the actor thread polls for a Result before it blocks on the socket: a small batch
/// comes back within this, and a blocking read would add a sleep and a (slow, on a VM) wake-up.
/// Bounded, so a long call costs at most this much extra CPU.
constexpr auto kResultSpin = std::chrono::microseconds(50);

std::string join_ids(const std::vector<int>& ids) {
  std::string s;
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert here (GCC bug
// 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  return s;
}

/// Bytes of a column's buffers (wherever in the region they lie).
int64_t byte_size(const process::ColumnDesc& d) {
  uint64_t bytes = 0;
  for (const auto* b : {&d.validity, &d.values, &d.data}) {
    if (b->present) bytes += b->size;
  }
  return static_cast<int64_t>(bytes);
}

class ProcessActor final : public Actor {
 public:
  ProcessActor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx, std::stop_token doomed)
      : spec_(std::move(spec)), ctx_(std::move(ctx)), doomed_(std::move(doomed)) {}
  ~ProcessActor() override { stop(); }

  void start() override;
  Column call(const Batch& args) override;
  void stop() override;
  void abort() override;
  int64_t inits() const override { return inits_.load(std::memory_order_relaxed); }
  bool alive() override;

 private:
  /// "udf 'speller' actor #1"
  std::string who() const {
    return "udf '" + spec_->name + "' actor #" + std::to_string(ctx_.actor_id);
  }
  void launch();
  void await_hello();
  void construct_remote();
  /// One attempt at a batch; nullopt when the worker died meanwhile.
  std::optional<Column> run_batch(const Batch& args);
  void write_call(const Batch& args);
  Column read_result(MessageReader& in, UniqueFd region, const Batch& args);
  /// Reaps a worker that closed its socket; returns "worker pid N was killed by ...".
  std::string bury_worker();
  /// Forgets the worker for abort(): from here on it is being reaped, so its pid may be reused.
  void forget_pid();
  /// Kills the worker of a call past spec.timeout and throws CallTimedOut.
  [[noreturn]] void kill_late_worker(const Batch& args);

  std::shared_ptr<const UdfSpec> spec_;
  ActorContext ctx_;
  /// Requested once the query has failed or is stopping: from then on no worker is started.
  std::stop_token doomed_;
  std::atomic<int64_t> inits_{0};
  bool stopped_ = false;
  /// The live worker's pid for abort() from another thread (-1: none); guarded by pid_mu_.
  std::mutex pid_mu_;
  pid_t worker_pid_ = -1;
  std::unique_ptr<process::WorkerProcess> worker_;
  /// Argument region: written here, mapped by the worker; kept across worker restarts.
  process::SharedRegion args_;
  bool args_sent_ = false;  ///< the current worker has args_ mapped
  /// The worker's result region, mapped here; results >= kWrapResultBytes point into it.
  std::shared_ptr<process::SharedMapping> result_map_;
  /// True while a result wrapped over result_map_ is still referenced somewhere (set false,
  /// with release ordering, by whichever thread drops its last buffer).
  std::shared_ptr<std::atomic<bool>> result_in_use_;
  process::MessageWriter writer_;
  std::vector<process::ColumnDesc> descs_;
};

void ProcessActor::start() {
  if (spec_->class_name.empty()) {
    throw InvalidArgument("udf '" + spec_->name +
                          "': Isolation::Process needs a class registered with "
                          "EMBER_REGISTER_UDF(ClassName), so that worker processes can construct "
                          "it by name");
  }
  if (!process::recorded_command_line()) {
    throw UdfError("udf '" + spec_->name +
                   "': Isolation::Process needs ember::init(argc, argv) at the top of main()" +
                   (process::is_unserved_worker()
                        ? " (this process was started as a worker and its main() reached a "
                          "query before ember::init)"
                        : ""));
  }
  launch();
}

void ProcessActor::launch() {
  process::WorkerLaunch launch;
  launch.argv = *process::recorded_command_line();
  launch.env = {{"CUDA_VISIBLE_DEVICES", join_ids(ctx_.gpu_ids)}};
  launch.output_prefix = "[" + spec_->name + " #" + std::to_string(ctx_.actor_id) + "] ";
  try {
    worker_ = process::WorkerProcess::spawn(launch);
  } catch (const Error& e) {
    throw UdfError(who() + ": " + e.what());
  }
  {
    std::lock_guard lock(pid_mu_);
    worker_pid_ = worker_->pid();
  }
  args_sent_ = false;
  result_map_.reset();
  result_in_use_.reset();
  await_hello();
  construct_remote();
  inits_.fetch_add(1, std::memory_order_relaxed);
}

void ProcessActor::await_hello() {
  std::string_view message;
  const auto status = worker_->channel().receive(&message, nullptr,
                                                 ControlChannel::Clock::now() + kStartupDeadline);
  if (status == ControlChannel::Status::Message &&
      MessageReader(message).header().op == Op::Hello) {
    return;
  }
  const pid_t pid = worker_->pid();
  if (status == ControlChannel::Status::TimedOut) {
    forget_pid();
    worker_.reset();  // kills and reaps it
    throw UdfError(who() + ": worker pid " + std::to_string(pid) + " did not reach " +
                   "ember::init(argc, argv) within " + std::to_string(kStartupDeadline.count()) +
                   " s; call it first thing in main(), before anything slow");
  }
  throw UdfError(who() + ": " + bury_worker() + " before it was ready to serve; a program that " +
                 "uses Isolation::Process must call ember::init(argc, argv) first thing in main()");
}

void ProcessActor::construct_remote() {
  const std::string init_args = spec_->init_args.serialize();
  if (!args_.map || args_.size() < init_args.size()) {
    args_ = process::SharedRegion::create("ember-args", init_args.size());
  }
  std::memcpy(args_.map->data(), init_args.data(), init_args.size());
  writer_.begin(Op::Init, process::kRegionAttached);
  writer_.put_string(spec_->class_name);
  writer_.put(static_cast<int32_t>(ctx_.actor_id));
  writer_.put(ctx_.num_cpus);
  writer_.put(static_cast<int64_t>(ctx_.memory_bytes));
  writer_.put(static_cast<uint32_t>(ctx_.gpu_ids.size()));
  for (int id : ctx_.gpu_ids) writer_.put(static_cast<int32_t>(id));
  writer_.put(static_cast<uint64_t>(init_args.size()));
  std::string_view message;
  UniqueFd region;
  if (worker_->channel().send(writer_.bytes(), args_.fd.get()) &&
      worker_->channel().receive(&message, &region) == ControlChannel::Status::Message) {
    args_sent_ = true;
    MessageReader in(message);
    if (in.header().op == Op::Ready && region) {
      result_map_ = process::map_received_region(region.get());
      return;
    }
    if (in.header().op != Op::Failed) throw Error(who() + ": unexpected reply to Init");
    in.get<uint8_t>();
    const std::string cause(in.get_string());
    forget_pid();
    worker_->reap(kDeathGrace);
    worker_.reset();
    throw UdfError(who() + " failed to initialise: " + cause);
  }
  throw UdfError(who() + ": " + bury_worker() + " while constructing the UDF");
}

void ProcessActor::forget_pid() {
  std::lock_guard lock(pid_mu_);
  worker_pid_ = -1;
}

bool ProcessActor::alive() {
  if (!worker_) return false;
  // An idle worker sends nothing: anything readable on its socket, or a hang-up, is its end.
  pollfd p{worker_->channel().fd(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void ProcessActor::abort() {
  // Under the lock the pid is still a live (or unreaped) worker of ours: never a reused pid.
  std::lock_guard lock(pid_mu_);
  if (worker_pid_ > 0) ::kill(worker_pid_, SIGKILL);
}

void ProcessActor::kill_late_worker(const Batch& args) {
  const pid_t pid = worker_->pid();
  forget_pid();
  worker_->reap(std::chrono::milliseconds(0));  // SIGKILL at once, then reap
  worker_.reset();
  result_map_.reset();
  result_in_use_.reset();
  args_sent_ = false;
  std::string replaced = "a fresh one constructed in its place";
  if (doomed_.stop_requested()) {
    replaced = "no fresh one started, because the query has already failed or is stopping";
  } else {
    // Replaced at once, as a retired thread actor is: the next call finds it ready. Should
    // that fail, the next call tries again and reports why.
    try {
      launch();
    } catch (const std::exception& e) {
      replaced = "a fresh one could not be started (" + std::string(e.what()) + ")";
    }
  }
  throw CallTimedOut(who() + ": a call on " + describe_args(args) + " ran past its timeout of " +
                     std::to_string(spec_->timeout.count()) + " ms; worker pid " +
                     std::to_string(pid) + " was killed (SIGKILL), " + replaced);
}

std::string ProcessActor::bury_worker() {
  const pid_t pid = worker_->pid();
  forget_pid();
  const auto status = worker_->reap(kDeathGrace);
  worker_.reset();
  result_map_.reset();
  result_in_use_.reset();
  args_sent_ = false;
  return "worker pid " + std::to_string(pid) + " " + process::describe_exit(status);
}

Column ProcessActor::call(const Batch& args) {
  if (stopped_) throw UdfError(who() + " was called after it stopped");
  if (!worker_) {
    // A replacement for a worker that died or was killed is a new construction, counted by
    // inits(). A query that has already failed gains nothing from it: its result would be
    // thrown away.
    if (doomed_.stop_requested()) {
      throw Cancelled(who() + ": no worker started for a batch of " +
                      std::to_string(args.num_rows()) +
                      " rows, because the query has already failed or is stopping");
    }
    launch();
  }
  if (std::optional<Column> result = run_batch(args)) return *std::move(result);
  const std::string what =
      bury_worker() + " while running a batch of " + std::to_string(args.num_rows()) + " rows";
  if (doomed_.stop_requested()) {
    throw Cancelled(who() + ": " + what +
                    "; not retried, because the query has already failed or is stopping");
  }
  // Like a throw: the pool retries the batch (max_retries, with backoff) and the next call
  // starts a fresh worker.
  throw UdfError(who() + ": " + what +
                 (spec_->max_retries == 0 ? "; not retried (max_retries = 0)" : ""));
}

void ProcessActor::write_call(const Batch& args) {
  const std::vector<Column>& columns = args.columns();
  const auto needed = static_cast<size_t>(process::plan_columns(columns, &descs_));
  if (!args_.map || args_.size() < needed) {
    args_ = process::SharedRegion::create("ember-args", needed);
    args_sent_ = false;
  }
  process::copy_columns(columns, descs_, args_.map->data());
  uint8_t flags = args_sent_ ? 0 : process::kRegionAttached;
  // While a result wrapped in place is still referenced, the worker must write elsewhere. The
  // acquire pairs with the release of the thread that dropped it: its reads came first.
  if (result_in_use_ && result_in_use_->load(std::memory_order_acquire)) {
    flags |= process::kResultRegionBusy;
    result_map_.reset();
  }
  result_in_use_.reset();
  writer_.begin(Op::Call, flags);
  writer_.put(args.num_rows());
  writer_.put(static_cast<uint32_t>(columns.size()));
  for (const auto& d : descs_) writer_.put(d);
  for (const Field& f : args.schema().fields()) writer_.put_string(f.name);
  if (writer_.bytes().size() > process::kMaxMessageBytes) {
    throw UdfError(who() + ": " + std::to_string(columns.size()) +
                   " argument columns are too many for Isolation::Process (their descriptions "
                   "exceed " +
                   std::to_string(process::kMaxMessageBytes) + " bytes)");
  }
}

std::optional<Column> ProcessActor::run_batch(const Batch& args) {
  write_call(args);
  const int attached = (writer_.flags() & process::kRegionAttached) ? args_.fd.get() : -1;
  if (!worker_->channel().send(writer_.bytes(), attached)) return std::nullopt;
  args_sent_ = true;
  std::string_view message;
  UniqueFd region;
  std::optional<ControlChannel::Clock::time_point> deadline;
  if (spec_->timeout.count() > 0) deadline = ControlChannel::Clock::now() + spec_->timeout;
  const auto status = worker_->channel().receive_soon(&message, &region, kResultSpin, deadline);
  if (status == ControlChannel::Status::TimedOut) kill_late_worker(args);
  if (status != ControlChannel::Status::Message) return std::nullopt;
  MessageReader in(message);
  if (in.header().flags & process::kArgsRetained) args_ = process::SharedRegion{};  // UDF holds it
  if (in.header().op == Op::Failed) {
    in.get<uint8_t>();  // the worker's error code; every call failure surfaces as UdfError
    const std::string message = "udf '" + spec_->name + "' failed on " + describe_args(args) +
                                ": " + std::string(in.get_string());
    const auto retry_after_ms = in.get<int64_t>();
    if (retry_after_ms >= 0) throw RetryAfter(std::chrono::milliseconds(retry_after_ms), message);
    throw UdfError(message);
  }
  if (in.header().op != Op::Result) throw Error(who() + ": unexpected reply to Call");
  return read_result(in, std::move(region), args);
}

Column ProcessActor::read_result(MessageReader& in, UniqueFd region, const Batch& args) {
  const uint8_t flags = in.header().flags;
  if (flags & process::kInputPassThrough) {
    const auto index = in.get<uint32_t>();
    const auto offset = in.get<int64_t>();
    const auto length = in.get<int64_t>();
    if (index >= static_cast<uint32_t>(args.num_columns()) || offset < 0 || length < 0 ||
        offset + length > args.column(static_cast<int>(index)).size()) {
      throw Error(who() + ": a Result names an argument slice that does not exist");
    }
    return args.column(static_cast<int>(index)).slice(offset, length);
  }
  if (flags & process::kRegionAttached) {
    if (!region) throw Error(who() + ": a Result announced a region but none came");
    result_map_ = process::map_received_region(region.get());
  }
  if (!result_map_) throw Error(who() + ": a Result came without a region");
  const auto desc = in.get<process::ColumnDesc>();
  if (byte_size(desc) < kWrapResultBytes) return process::copy_column(desc, *result_map_);
  // One result at a time can point into the region (the next call moves on if it still
  // does); its buffers share an owner that keeps the mapping and reports when it goes.
  result_in_use_ = std::make_shared<std::atomic<bool>>(true);
  std::shared_ptr<process::SharedMapping> owner(
      result_map_.get(), [map = result_map_, in_use = result_in_use_](process::SharedMapping*) {
        in_use->store(false, std::memory_order_release);
      });
  return process::wrap_column(desc, owner);
}

void ProcessActor::stop() {
  stopped_ = true;
  if (!worker_) return;
  writer_.begin(Op::Stop);
  worker_->channel().send(writer_.bytes());
  forget_pid();
  worker_->reap(kStopGrace);  // the UDF's destructor runs in the worker meanwhile
  worker_.reset();
  result_map_.reset();
  result_in_use_.reset();
  args_ = process::SharedRegion{};
}

}  // namespace

std::unique_ptr<Actor> make_process_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx,
                                          std::stop_token doomed) {
  return std::make_unique<ProcessActor>(std::move(spec), std::move(ctx), std::move(doomed));
}

}  // namespace ember
