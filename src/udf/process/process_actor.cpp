// An actor whose UDF lives in a worker process: batches cross through shared memory, a call
// past spec.timeout kills its worker, a worker that died or was killed is replaced at the next
// call while the query can still succeed (the pool decides whether that call is a retry, with
// its backoff), and errors come back as UdfError naming the UDF, the actor and what happened.
//
// With max_concurrency(k) one worker serves k calls at once: it has k call lanes, each a
// control channel of its own with its own argument and result regions, served by a thread of
// the worker; a call takes a free lane. When the worker dies under several calls, each learns
// whose fault it was: the call past its deadline (the others were only in the way), or, for a
// crash with several calls in flight, nobody can tell, so each of them runs again alone on the
// fresh worker, where a second death is its own failure. A call in the way is therefore never
// failed, retried nor isolated for another's fault.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "udf/actor.h"
#include "udf/process/column_transfer.h"
#include "udf/process/live_worker.h"
#include "udf/process/shared_region.h"
#include "udf/process/spawn_thread.h"
#include "udf/process/wire_message.h"
#include "udf/process/worker_entry.h"
#include "udf/process/worker_process.h"
#include "udf/udf_call.h"

namespace ember {

namespace {

using process::ControlChannel;
using process::LiveWorker;
using process::MessageReader;
using process::Op;
using process::UniqueFd;

/// How long a stopping worker may spend in the UDF's destructor before it is killed.
constexpr auto kStopGrace = std::chrono::seconds(10);
/// Results at least this large are used in place in the worker's region (no second copy);
/// smaller ones are copied out so the region is free again at once.
constexpr int64_t kWrapResultBytes = int64_t{1} << 20;
/// How long a lane polls for a Result before it blocks on the socket: a small batch comes
/// back within this, and a blocking read would add a sleep and a (slow, on a VM) wake-up.
/// Bounded, so a long call costs at most this much extra CPU.
constexpr auto kResultSpin = std::chrono::microseconds(50);

/// Bytes of a column's buffers (wherever in the region they lie).
int64_t byte_size(const process::ColumnDesc& d) {
  uint64_t bytes = 0;
  for (const auto* b : {&d.validity, &d.values, &d.data}) {
    if (b->present) bytes += b->size;
  }
  return static_cast<int64_t>(bytes);
}

/// What one lane keeps across calls: its argument region (kept across worker restarts) and
/// the worker's result region for it, mapped here.
struct CallLane {
  bool busy = false;  // guarded by ProcessActor::mu_
  process::SharedRegion args;
  uint64_t args_sent_to = 0;  ///< serial of the worker that has `args` mapped (0: none)
  uint64_t bound_to = 0;      ///< serial of the worker result_map belongs to
  /// The worker's result region, mapped here; results >= kWrapResultBytes point into it.
  std::shared_ptr<process::SharedMapping> result_map;
  /// True while a result wrapped over result_map is still referenced somewhere (set false,
  /// with release ordering, by whichever thread drops its last buffer).
  std::shared_ptr<std::atomic<bool>> result_in_use;
  process::MessageWriter writer;
  std::vector<process::ColumnDesc> descs;
};

class ProcessActor final : public Actor {
 public:
  ProcessActor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx, std::stop_token doomed)
      : spec_(std::move(spec)),
        ctx_(std::move(ctx)),
        doomed_(std::move(doomed)),
        lanes_(static_cast<size_t>(std::max(1, spec_->max_concurrency))) {}
  ~ProcessActor() override { stop(); }

  void start() override;
  Column call(const Batch& args) override;
  void stop() override;
  void abort() override;
  int64_t inits() const override { return inits_.load(std::memory_order_relaxed); }
  bool alive() override;

 private:
  /// A call's hold on a lane of a live worker, from begin_call to end_call.
  struct Hold {
    std::shared_ptr<LiveWorker> worker;
    int lane = -1;
    bool alone = false;
  };
  /// What an attempt that brought no result asks for.
  enum class Rerun { Again, Alone };

  /// "udf 'speller' actor #1"
  std::string who() const {
    return "udf '" + spec_->name + "' actor #" + std::to_string(ctx_.actor_id);
  }
  /// Takes a free lane of a live worker (starting one if needed). `alone`: waits until no other
  /// call runs and keeps others out until end_call.
  Hold begin_call(const Batch& args, bool alone);
  void end_call(Hold& hold);
  /// Makes sure worker_ is a live worker, starting one if no other call is. Requires mu_.
  void ensure_worker_locked(std::unique_lock<std::mutex>& lock, int64_t rows);
  /// Starts a worker and constructs the UDF in it; mu_ not held.
  std::shared_ptr<LiveWorker> launch();
  /// One attempt at a batch on `hold`: the result, or what to do when the worker died under
  /// it for another call's sake. Throws the call's own failure.
  std::optional<Column> attempt(Hold& hold, const Batch& args, Rerun* rerun);
  void write_call(CallLane& lane, const LiveWorker& w, const Batch& args);
  /// Sends the Call; false when the worker is gone (the call never reached it).
  bool send_call(Hold& hold);
  Column read_reply(Hold& hold, std::string_view message, UniqueFd region, const Batch& args);
  Column read_result(CallLane& lane, MessageReader& in, UniqueFd region, const Batch& args);
  /// Marks `w` as gone and no longer ours to kill. Requires mu_.
  void mark_gone_locked(LiveWorker& w);
  /// Kills the worker of `hold`'s call, past spec.timeout, and throws CallTimedOut.
  [[noreturn]] void fail_late_call(Hold& hold, const Batch& args);
  void forget_pid(pid_t pid);

  std::shared_ptr<const UdfSpec> spec_;
  ActorContext ctx_;
  /// Requested once the query has failed or is stopping: from then on no worker is started.
  std::stop_token doomed_;
  std::atomic<int64_t> inits_{0};
  /// Forks the workers when several lanes call (see spawn_thread.h); null for one lane.
  std::unique_ptr<process::SpawnThread> spawner_;

  std::mutex mu_;
  std::condition_variable changed_;  ///< a call ended, or a worker started
  // Guarded by mu_:
  bool stopped_ = false;
  std::shared_ptr<LiveWorker> worker_;
  bool launching_ = false;
  uint64_t launches_ = 0;
  int running_ = 0;  ///< calls between begin_call and end_call
  int alone_waiting_ = 0;
  bool alone_running_ = false;
  std::vector<CallLane> lanes_;  ///< `busy` guarded; the rest is its holder's alone

  /// The pid of the worker being started or serving, for abort() from another thread (-1:
  /// none); guarded by pid_mu_. Cleared before the process is reaped: never a reused pid.
  std::mutex pid_mu_;
  pid_t live_pid_ = -1;
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
  if (lanes_.size() > 1) spawner_ = std::make_unique<process::SpawnThread>();
  auto w = launch();
  std::lock_guard lock(mu_);
  worker_ = std::move(w);
}

std::shared_ptr<LiveWorker> ProcessActor::launch() {
  process::WorkerStart start;
  start.spec = spec_.get();
  start.ctx = &ctx_;
  start.who = who();
  start.lanes = static_cast<int>(lanes_.size());
  start.spawner = spawner_.get();
  start.spawned = [this](pid_t pid) {
    std::lock_guard lock(pid_mu_);
    live_pid_ = pid;
  };
  start.forget = [this](pid_t pid) { forget_pid(pid); };
  uint64_t serial;
  {
    std::lock_guard lock(mu_);
    serial = ++launches_;
  }
  auto w = process::start_worker(start, serial);
  inits_.fetch_add(1, std::memory_order_relaxed);
  return w;
}

void ProcessActor::forget_pid(pid_t pid) {
  std::lock_guard lock(pid_mu_);
  if (live_pid_ == pid) live_pid_ = -1;
}

bool ProcessActor::alive() {
  std::lock_guard lock(mu_);
  if (!worker_ || worker_->gone) return false;
  // An idle worker sends nothing: anything readable on a socket, or a hang-up, is its end.
  pollfd p{worker_->process->channel().fd(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void ProcessActor::abort() {
  // Under the lock the pid is still a live (or unreaped) worker of ours: never a reused pid.
  std::lock_guard lock(pid_mu_);
  if (live_pid_ > 0) ::kill(live_pid_, SIGKILL);
}

void ProcessActor::mark_gone_locked(LiveWorker& w) {
  if (w.gone) return;
  w.gone = true;
  w.in_flight_at_end = w.in_flight;
  forget_pid(w.process->pid());
}

// ---- calls

ProcessActor::Hold ProcessActor::begin_call(const Batch& args, bool alone) {
  std::unique_lock lock(mu_);
  if (stopped_) throw UdfError(who() + " was called after it stopped");
  if (alone) ++alone_waiting_;
  changed_.wait(lock, [&] {
    return alone ? running_ == 0 && !alone_running_ : !alone_running_ && alone_waiting_ == 0;
  });
  if (alone) {
    --alone_waiting_;
    alone_running_ = true;
  }
  ++running_;
  Hold hold;
  hold.alone = alone;
  try {
    ensure_worker_locked(lock, args.num_rows());
  } catch (...) {
    lock.unlock();
    end_call(hold);
    throw;
  }
  hold.worker = worker_;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].busy) continue;
    lanes_[i].busy = true;
    hold.lane = static_cast<int>(i);
    break;
  }
  if (hold.lane < 0) {
    lock.unlock();
    end_call(hold);
    throw Error(who() + ": more calls at once than its max_concurrency");
  }
  return hold;
}

void ProcessActor::end_call(Hold& hold) {
  {
    std::lock_guard lock(mu_);
    if (hold.lane >= 0) lanes_[static_cast<size_t>(hold.lane)].busy = false;
    --running_;
    if (hold.alone) alone_running_ = false;
  }
  changed_.notify_all();
  hold.worker.reset();  // the last holder of a dead worker reaps it, with no lock held
}

void ProcessActor::ensure_worker_locked(std::unique_lock<std::mutex>& lock, int64_t rows) {
  while (!worker_ || worker_->gone) {
    if (launching_) {
      changed_.wait(lock);
      continue;
    }
    // A replacement for a worker that died or was killed is a new construction, counted by
    // inits(). A query that has already failed gains nothing from it: its result would be
    // thrown away.
    if (doomed_.stop_requested()) {
      throw Cancelled(who() + ": no worker started for a batch of " + std::to_string(rows) +
                      " rows, because the query has already failed or is stopping");
    }
    launching_ = true;
    std::shared_ptr<LiveWorker> dead = std::move(worker_);
    lock.unlock();
    dead.reset();  // reaped here if no call holds it any more
    std::shared_ptr<LiveWorker> fresh;
    std::exception_ptr error;
    try {
      fresh = launch();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    launching_ = false;
    changed_.notify_all();
    if (error) std::rethrow_exception(error);
    worker_ = std::move(fresh);
  }
}

Column ProcessActor::call(const Batch& args) {
  bool alone = false;
  for (;;) {
    Hold hold = begin_call(args, alone);
    Rerun rerun = Rerun::Again;
    std::optional<Column> result;
    try {
      result = attempt(hold, args, &rerun);
    } catch (...) {
      end_call(hold);
      throw;
    }
    end_call(hold);
    if (result) return *std::move(result);
    // The worker died under this call for another call's sake, or for a reason nobody can
    // pin on one of several calls: run it again (alone, in the second case), not counted as a
    // failure of its own.
    if (rerun == Rerun::Alone) alone = true;
  }
}

std::optional<Column> ProcessActor::attempt(Hold& hold, const Batch& args, Rerun* rerun) {
  LiveWorker& w = *hold.worker;
  CallLane& lane = lanes_[static_cast<size_t>(hold.lane)];
  if (lane.bound_to != w.serial) {
    lane.bound_to = w.serial;
    // Lane 0's first region came with Ready; the lane owns it from here on.
    lane.result_map = hold.lane == 0 ? std::move(w.first_result_map) : nullptr;
    lane.result_in_use.reset();
  }
  write_call(lane, w, args);
  if (!send_call(hold)) {
    *rerun = Rerun::Again;
    return std::nullopt;
  }
  std::optional<ControlChannel::Clock::time_point> deadline;
  if (spec_->timeout.count() > 0) deadline = ControlChannel::Clock::now() + spec_->timeout;
  std::string_view message;
  UniqueFd region;
  const auto status = w.channel(hold.lane).receive_soon(&message, &region, kResultSpin, deadline);
  bool late = false;
  {
    std::lock_guard lock(mu_);
    if (status == ControlChannel::Status::TimedOut && !w.gone) {
      // Ours is the call past its deadline: the worker is killed for it, and every other call
      // on it finds it gone.
      mark_gone_locked(w);
      w.late_lane = hold.lane;
      ::kill(w.process->pid(), SIGKILL);  // not reaped before `gone`: still our child
    } else if (status == ControlChannel::Status::Closed) {
      mark_gone_locked(w);
    }
    late = w.gone && w.late_lane == hold.lane;
    --w.in_flight;  // after a death is marked: it counted this call as in flight
  }
  if (status == ControlChannel::Status::Message) {
    return read_reply(hold, message, std::move(region), args);
  }
  if (late) fail_late_call(hold, args);
  const std::string what =
      w.describe_end() + " while running a batch of " + std::to_string(args.num_rows()) + " rows";
  if (doomed_.stop_requested()) {
    throw Cancelled(who() + ": " + what +
                    "; not retried, because the query has already failed or is stopping");
  }
  bool in_the_way;
  {
    std::lock_guard lock(mu_);
    in_the_way = w.late_lane >= 0 || w.in_flight_at_end > 1;
  }
  if (in_the_way && !hold.alone) {
    *rerun = Rerun::Alone;
    return std::nullopt;
  }
  // Like a throw: the pool retries the batch (max_retries, with backoff) and the next call
  // starts a fresh worker.
  throw UdfError(who() + ": " + what +
                 (spec_->max_retries == 0 ? "; not retried (max_retries = 0)" : ""));
}

bool ProcessActor::send_call(Hold& hold) {
  LiveWorker& w = *hold.worker;
  CallLane& lane = lanes_[static_cast<size_t>(hold.lane)];
  const int attached = (lane.writer.flags() & process::kRegionAttached) ? lane.args.fd.get() : -1;
  std::lock_guard lock(mu_);
  if (w.gone) return false;
  // Under mu_, so that a worker found dead counts exactly the calls it had in flight.
  if (!w.channel(hold.lane).send(lane.writer.bytes(), attached)) {
    mark_gone_locked(w);
    return false;
  }
  lane.args_sent_to = w.serial;
  ++w.in_flight;
  return true;
}

void ProcessActor::fail_late_call(Hold& hold, const Batch& args) {
  const pid_t pid = hold.worker->process->pid();
  std::string replaced = "a fresh one constructed in its place";
  if (doomed_.stop_requested()) {
    replaced = "no fresh one started, because the query has already failed or is stopping";
  } else {
    // Replaced at once, as a retired thread actor is: the next call finds it ready. Should
    // that fail, the next call tries again and reports why.
    try {
      std::unique_lock lock(mu_);
      ensure_worker_locked(lock, args.num_rows());
    } catch (const std::exception& e) {
      replaced = "a fresh one could not be started (" + std::string(e.what()) + ")";
    }
  }
  throw CallTimedOut(who() + ": a call on " + describe_args(args) + " ran past its timeout of " +
                     std::to_string(spec_->timeout.count()) + " ms; worker pid " +
                     std::to_string(pid) + " was killed (SIGKILL), " + replaced);
}

void ProcessActor::write_call(CallLane& lane, const LiveWorker& w, const Batch& args) {
  const std::vector<Column>& columns = args.columns();
  const auto needed = static_cast<size_t>(process::plan_columns(columns, &lane.descs));
  if (!lane.args.map || lane.args.size() < needed) {
    lane.args = process::SharedRegion::create("ember-args", needed);
    lane.args_sent_to = 0;
  }
  process::copy_columns(columns, lane.descs, lane.args.map->data());
  uint8_t flags = lane.args_sent_to == w.serial ? 0 : process::kRegionAttached;
  // While a result wrapped in place is still referenced, the worker must write elsewhere. The
  // acquire pairs with the release of the thread that dropped it: its reads came first.
  if (lane.result_in_use && lane.result_in_use->load(std::memory_order_acquire)) {
    flags |= process::kResultRegionBusy;
    lane.result_map.reset();
  }
  lane.result_in_use.reset();
  process::MessageWriter& writer = lane.writer;
  writer.begin(Op::Call, flags);
  writer.put(args.num_rows());
  writer.put(static_cast<uint32_t>(columns.size()));
  for (const auto& d : lane.descs) writer.put(d);
  for (const Field& f : args.schema().fields()) writer.put_string(f.name);
  if (writer.bytes().size() > process::kMaxMessageBytes) {
    throw UdfError(who() + ": " + std::to_string(columns.size()) +
                   " argument columns are too many for Isolation::Process (their descriptions "
                   "exceed " +
                   std::to_string(process::kMaxMessageBytes) + " bytes)");
  }
}

Column ProcessActor::read_reply(Hold& hold, std::string_view message, UniqueFd region,
                                const Batch& args) {
  CallLane& lane = lanes_[static_cast<size_t>(hold.lane)];
  MessageReader in(message);
  if (in.header().flags & process::kArgsRetained) lane.args = process::SharedRegion{};
  if (in.header().op == Op::Failed) {
    in.get<uint8_t>();  // the worker's error code; every call failure surfaces as UdfError
    if (in.header().flags & process::kResultRejected)
      throw wrong_result(*spec_, std::string(in.get_string()));
    const std::string text = "udf '" + spec_->name + "' failed on " + describe_args(args) + ": " +
                             std::string(in.get_string());
    const auto retry_after_ms = in.get<int64_t>();
    if (retry_after_ms >= 0) throw RetryAfter(std::chrono::milliseconds(retry_after_ms), text);
    throw UdfError(text);
  }
  if (in.header().op != Op::Result) throw Error(who() + ": unexpected reply to Call");
  return read_result(lane, in, std::move(region), args);
}

Column ProcessActor::read_result(CallLane& lane, MessageReader& in, UniqueFd region,
                                 const Batch& args) {
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
    lane.result_map = process::map_received_region(region.get());
  }
  if (!lane.result_map) throw Error(who() + ": a Result came without a region");
  const auto desc = in.get<process::ColumnDesc>();
  if (byte_size(desc) < kWrapResultBytes) return process::copy_column(desc, *lane.result_map);
  // One result at a time per lane can point into its region (the next call moves on if it
  // still does); its buffers share an owner that keeps the mapping and reports when it goes.
  lane.result_in_use = std::make_shared<std::atomic<bool>>(true);
  std::shared_ptr<process::SharedMapping> owner(
      lane.result_map.get(),
      [map = lane.result_map, in_use = lane.result_in_use](process::SharedMapping*) {
        in_use->store(false, std::memory_order_release);
      });
  return process::wrap_column(desc, owner);
}

void ProcessActor::stop() {
  std::shared_ptr<LiveWorker> w;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    w = std::move(worker_);
    if (w && !w->gone) mark_gone_locked(*w);
  }
  if (w) {
    process::MessageWriter writer;
    writer.begin(Op::Stop);
    w->process->channel().send(writer.bytes());
    w->extra_lanes.clear();  // the worker's lane threads end, then it destroys the UDF
    w->process->reap(kStopGrace);
  }
  for (CallLane& lane : lanes_) {
    lane.result_map.reset();
    lane.result_in_use.reset();
    lane.args = process::SharedRegion{};
  }
}

}  // namespace

std::unique_ptr<Actor> make_process_actor(std::shared_ptr<const UdfSpec> spec, ActorContext ctx,
                                          std::stop_token doomed) {
  return std::make_unique<ProcessActor>(std::move(spec), std::move(ctx), std::move(doomed));
}

}  // namespace ember
