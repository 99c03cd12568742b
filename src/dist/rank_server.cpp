// Hosting remote actors on a worker rank: Init makes a host (thread) that constructs the UDF
// with the same registry and actor backends as on one machine; Call and Stop go to its queue,
// whose calls run max_concurrency at once.
#include "dist/rank_server.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/partition_worker.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"
#include "udf/actor.h"
#include "udf/udf_spec_codec.h"

namespace ember::dist {

namespace {

/// One hosted actor: its threads (one per call lane) take its messages in arrival order.
class ActorHost {
 public:
  ActorHost(Transport& transport, Incoming init) : transport_(transport) {
    thread_ = std::thread([this, m = std::move(init)]() mutable { serve(std::move(m)); });
  }
  ~ActorHost() {
    post_stop_if_running();
    thread_.join();
  }
  /// The actor has stopped and the thread is ending (joining it is immediate).
  bool finished() {
    std::lock_guard lock(mu_);
    return done_;
  }
  void post(Incoming message) {
    {
      std::lock_guard lock(mu_);
      if (!done_) {
        queue_.push_back(std::move(message));
        cv_.notify_one();
        return;
      }
    }
    refuse(message);
  }

 private:
  void post_stop_if_running() {
    std::lock_guard lock(mu_);
    if (done_) return;
    stop_quietly_ = true;
    cv_.notify_one();
  }
  void serve(Incoming init);
  /// Answers a call that came after the actor stopped (a rank calling its own actors can race
  /// rank 0's teardown of the pool): Cancelled, so that its caller does not wait forever.
  void refuse(const Incoming& message);
  /// Builds the spec and constructs the actor; false (after replying Failed) on failure.
  bool construct(Incoming& init);
  void run_call(const Incoming& message);
  /// One lane: runs calls in arrival order until a Stop or shutdown ends every lane.
  void take_calls();

  Transport& transport_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Incoming> queue_;  // guarded by mu_
  bool stop_quietly_ = false;   // guarded by mu_: shutdown, nobody waits for a reply
  bool done_ = false;           // guarded by mu_
  bool stopping_ = false;       // guarded by mu_: a lane took Stop (or shutdown)
  bool stop_reply_ = false;     // guarded by mu_: it was Stop, which rank 0 waits to hear
  uint64_t key_ = 0;
  int lanes_ = 1;  ///< calls at once: the UDF's max_concurrency
  std::unique_ptr<Actor> actor_;
  std::thread thread_;
};

bool ActorHost::construct(Incoming& init) {
  process::MessageReader in(init.bytes());
  key_ = in.get<uint64_t>();
  try {
    // Every setting rank 0's pool has: a process actor holds its calls to the timeout itself,
    // and max_concurrency says how many calls the actor takes at once (serve()).
    std::shared_ptr<UdfSpec> spec = decode_udf_spec(in.get_string());
    ActorContext ctx;
    ctx.actor_id = in.get<int32_t>();
    ctx.num_cpus = in.get<double>();
    ctx.memory_bytes = in.get<int64_t>();
    const auto gpus = in.get<uint32_t>();
    for (uint32_t i = 0; i < gpus; ++i) ctx.gpu_ids.push_back(in.get<int32_t>());
    lanes_ = std::max(1, spec->max_concurrency);
    actor_ = spec->isolation == Isolation::Process ? make_process_actor(spec, ctx)
                                                   : make_thread_actor(spec, ctx);
    actor_->start();
  } catch (...) {
    if (actor_) actor_->stop();
    actor_.reset();
    transport_.send(0, kTagControl, failure_message(key_, std::current_exception()));
    return false;
  }
  process::MessageWriter out;
  out.begin(process::Op::Ready);
  out.put(key_);
  out.put(actor_->inits());
  transport_.send(0, kTagControl, out.bytes());
  return true;
}

void ActorHost::run_call(const Incoming& message) {
  int reply_rank = 0;
  uint64_t reply_key = key_;
  try {
    process::MessageReader in(message.bytes());
    in.get<uint64_t>();
    reply_rank = in.get<int32_t>();
    reply_key = in.get<uint64_t>();
    const auto rows = in.get<int64_t>();
    if (!message.data) throw Error("a call without its batch");
    Batch args = to_batch(unpack_columns(in, message.data), rows);
    Column result = actor_->call(args);
    process::MessageWriter head;
    head.begin(process::Op::Result);
    head.put(reply_key);
    // The actor's construction count travels with each result: a process actor whose worker
    // died starts a fresh one (a new construction) at its next call; rank 0's pool retries.
    head.put(actor_->inits());
    transport_.send(reply_rank, kTagData, gather_columns(head, {result}, {""}));
  } catch (...) {
    transport_.send(reply_rank, kTagControl, failure_message(reply_key, std::current_exception()));
  }
}

void ActorHost::refuse(const Incoming& message) {
  process::MessageReader in(message.bytes());
  if (in.header().op != process::Op::Call) return;
  in.get<uint64_t>();
  const auto reply_rank = in.get<int32_t>();
  const auto reply_key = in.get<uint64_t>();
  transport_.send(reply_rank, kTagControl,
                  failure_message(reply_key, std::make_exception_ptr(Cancelled(
                                                 "the actor has stopped: its query has ended"))));
}

void ActorHost::take_calls() {
  for (;;) {
    Incoming message;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || stop_quietly_ || stopping_; });
      if (stopping_) return;
      const bool call =
          !queue_.empty() &&
          process::MessageReader(queue_.front().bytes()).header().op == process::Op::Call;
      if (!call) {
        // Stop, or shutdown with nothing left to run: every lane ends after its call.
        stop_reply_ = !queue_.empty();
        if (stop_reply_) queue_.pop_front();
        stopping_ = true;
        cv_.notify_all();
        return;
      }
      message = std::move(queue_.front());
      queue_.pop_front();
    }
    run_call(message);
  }
}

void ActorHost::serve(Incoming init) {
  if (construct(init)) {
    // max_concurrency lanes take calls at once, as a pool's lanes would on one machine.
    std::vector<std::thread> lanes;
    try {
      for (int i = 1; i < lanes_; ++i) lanes.emplace_back([this] { take_calls(); });
    } catch (const std::system_error&) {
      // Fewer lanes than asked: calls wait their turn, which is slower but still right.
    }
    take_calls();
    for (std::thread& lane : lanes) lane.join();
    // The UDF's destructor runs on the thread that constructed it.
    actor_->stop();
    bool reply = false;
    {
      std::lock_guard lock(mu_);
      reply = stop_reply_;
    }
    if (reply) {
      process::MessageWriter out;
      out.begin(process::Op::Stop);
      out.put(key_);
      out.put(actor_->inits());
      transport_.send(0, kTagControl, out.bytes());
    }
  }
  std::deque<Incoming> left;
  {
    std::lock_guard lock(mu_);
    done_ = true;
    left.swap(queue_);
  }
  for (const Incoming& m : left) refuse(m);
}

}  // namespace

struct RankServer::State {
  explicit State(Transport& transport) : partitions(transport) {}
  std::mutex mu;
  std::condition_variable shutdown_cv;
  bool shutdown = false;                                 // guarded by mu
  std::map<uint64_t, std::unique_ptr<ActorHost>> hosts;  // guarded by mu
  PartitionWorker partitions;
};

RankServer::RankServer(Transport& transport)
    : transport_(transport), state_(std::make_unique<State>(transport)) {}

RankServer::~RankServer() {
  state_->partitions.shutdown();
  std::lock_guard lock(state_->mu);
  state_->hosts.clear();
}

void RankServer::handle(Incoming message) {
  State& s = *state_;
  if (message.tag == kTagShutdown) {
    {
      std::lock_guard lock(s.mu);
      s.shutdown = true;
    }
    s.shutdown_cv.notify_all();
    return;
  }
  if (message.tag == kTagQuery) return s.partitions.handle(std::move(message));
  const process::MessageReader in(message.bytes());
  // Replies to this rank's pool calls (rank 0 sends a hosted actor nothing else of these).
  if (in.header().op == process::Op::Result || in.header().op == process::Op::Failed)
    return route_reply(std::move(message));
  const uint64_t key = message_key(message.bytes());
  std::lock_guard lock(s.mu);
  if (in.header().op == process::Op::Init) {
    // Hosts of earlier queries' actors that have stopped go now (their threads have ended).
    std::erase_if(s.hosts, [](auto& entry) { return entry.second->finished(); });
    s.hosts[key] = std::make_unique<ActorHost>(transport_, std::move(message));
    return;
  }
  auto it = s.hosts.find(key);
  if (it == s.hosts.end()) return;
  it->second->post(std::move(message));
}

void RankServer::run() {
  State& s = *state_;
  std::map<uint64_t, std::unique_ptr<ActorHost>> hosts;
  {
    std::unique_lock lock(s.mu);
    s.shutdown_cv.wait(lock, [&] { return s.shutdown; });
    hosts.swap(s.hosts);
  }
  s.partitions.shutdown();  // every query's run has ended: rank 0's program has
  hosts.clear();            // each host stops its actor and joins its thread
}

}  // namespace ember::dist
