// Hosting remote actors on a worker rank: Init makes a host (thread) that constructs the UDF
// with the same registry and actor backends as on one machine; Call and Stop go to its queue.
#include "dist/rank_server.h"

#if EMBER_HAVE_MPI

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/partition_worker.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"
#include "udf/actor.h"
#include "udf/init_args_codec.h"

namespace ember::dist {

namespace {

/// One hosted actor: its thread takes its messages in order.
class ActorHost {
 public:
  explicit ActorHost(Incoming init) {
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
  static void refuse(const Incoming& message);
  /// Builds the spec and constructs the actor; false (after replying Failed) on failure.
  bool construct(Incoming& init);
  void run_call(const Incoming& message);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Incoming> queue_;  // guarded by mu_
  bool stop_quietly_ = false;   // guarded by mu_: shutdown, nobody waits for a reply
  bool done_ = false;           // guarded by mu_
  uint64_t key_ = 0;
  std::unique_ptr<Actor> actor_;
  std::thread thread_;
};

bool ActorHost::construct(Incoming& init) {
  process::MessageReader in(init.bytes());
  key_ = in.get<uint64_t>();
  try {
    auto spec = std::make_shared<UdfSpec>();
    spec->stateful = true;
    spec->name = std::string(in.get_string());
    spec->class_name = std::string(in.get_string());
    spec->isolation = in.get<uint8_t>() ? Isolation::Process : Isolation::Thread;
    spec->max_retries = in.get<int32_t>();
    ActorContext ctx;
    ctx.actor_id = in.get<int32_t>();
    ctx.num_cpus = in.get<double>();
    ctx.memory_bytes = in.get<int64_t>();
    const auto gpus = in.get<uint32_t>();
    for (uint32_t i = 0; i < gpus; ++i) ctx.gpu_ids.push_back(in.get<int32_t>());
    spec->init_args = deserialize_init_args(in.get_string());
    spec->num_cpus = ctx.num_cpus;
    spec->memory_bytes = ctx.memory_bytes;
    const detail::UdfFactory* factory = detail::find_udf_factory(spec->class_name);
    if (factory == nullptr) {
      throw UdfError("udf '" + spec->name + "': class '" + spec->class_name +
                     "' is not registered in this rank's binary; run the same binary on every "
                     "rank, with EMBER_REGISTER_UDF(" +
                     spec->class_name + ") linked into it");
    }
    spec->factory = *factory;
    actor_ = spec->isolation == Isolation::Process ? make_process_actor(spec, ctx)
                                                   : make_thread_actor(spec, ctx);
    actor_->start();
  } catch (...) {
    if (actor_) actor_->stop();
    actor_.reset();
    Transport::send(0, kTagControl, failure_message(key_, std::current_exception()));
    return false;
  }
  process::MessageWriter out;
  out.begin(process::Op::Ready);
  out.put(key_);
  out.put(actor_->inits());
  Transport::send(0, kTagControl, out.bytes());
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
    Transport::send(reply_rank, kTagData, gather_columns(head, {result}, {""}));
  } catch (...) {
    Transport::send(reply_rank, kTagControl, failure_message(reply_key, std::current_exception()));
  }
}

void ActorHost::refuse(const Incoming& message) {
  process::MessageReader in(message.bytes());
  if (in.header().op != process::Op::Call) return;
  in.get<uint64_t>();
  const auto reply_rank = in.get<int32_t>();
  const auto reply_key = in.get<uint64_t>();
  Transport::send(reply_rank, kTagControl,
                  failure_message(reply_key, std::make_exception_ptr(Cancelled(
                                                 "the actor has stopped: its query has ended"))));
}

void ActorHost::serve(Incoming init) {
  const bool constructed = construct(init);
  for (bool running = constructed; running;) {
    Incoming message;
    bool quiet = false;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || stop_quietly_; });
      if (queue_.empty()) {
        quiet = true;
      } else {
        message = std::move(queue_.front());
        queue_.pop_front();
      }
    }
    const auto op = quiet ? process::Op::Stop : process::MessageReader(message.bytes()).header().op;
    if (op == process::Op::Call) {
      run_call(message);
      continue;
    }
    // Stop (or shutdown): the UDF's destructor runs on the thread that constructed it.
    actor_->stop();
    running = false;
    if (!quiet) {
      process::MessageWriter out;
      out.begin(process::Op::Stop);
      out.put(key_);
      out.put(actor_->inits());
      Transport::send(0, kTagControl, out.bytes());
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

struct ServerState {
  std::mutex mu;
  std::condition_variable shutdown_cv;
  bool shutdown = false;                                 // guarded by mu
  std::map<uint64_t, std::unique_ptr<ActorHost>> hosts;  // guarded by mu
};

ServerState& server() {
  static ServerState s;
  return s;
}

}  // namespace

void RankServer::handle(Incoming message) {
  ServerState& s = server();
  if (message.tag == kTagShutdown) {
    {
      std::lock_guard lock(s.mu);
      s.shutdown = true;
    }
    s.shutdown_cv.notify_all();
    return;
  }
  if (message.tag == kTagQuery) return PartitionWorker::handle(std::move(message));
  const process::MessageReader in(message.bytes());
  // Replies to this rank's pool calls (rank 0 sends a hosted actor nothing else of these).
  if (in.header().op == process::Op::Result || in.header().op == process::Op::Failed)
    return route_reply(std::move(message));
  const uint64_t key = message_key(message.bytes());
  std::lock_guard lock(s.mu);
  if (in.header().op == process::Op::Init) {
    // Hosts of earlier queries' actors that have stopped go now (their threads have ended).
    std::erase_if(s.hosts, [](auto& entry) { return entry.second->finished(); });
    s.hosts[key] = std::make_unique<ActorHost>(std::move(message));
    return;
  }
  auto it = s.hosts.find(key);
  if (it == s.hosts.end()) return;
  it->second->post(std::move(message));
}

void RankServer::run() {
  ServerState& s = server();
  std::map<uint64_t, std::unique_ptr<ActorHost>> hosts;
  {
    std::unique_lock lock(s.mu);
    s.shutdown_cv.wait(lock, [&] { return s.shutdown; });
    hosts.swap(s.hosts);
  }
  PartitionWorker::shutdown();  // every query's run has ended: rank 0's program has
  hosts.clear();                // each host stops its actor and joins its thread
}

}  // namespace ember::dist

#endif  // EMBER_HAVE_MPI
