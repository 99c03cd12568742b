// Remote actors on rank 0: each has a key; replies are routed by key into its mailbox, and its
// actor thread waits there. A rank that dies takes the job down (mpirun); a rank that stops
// answering is declared lost (rank_watch.h), and every wait on it then gets a Failed reply in
// its place, so a wait never outlives its peer.
#include "dist/remote_actor.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "dist/batch_message.h"
#include "dist/rank_protocol.h"
#include "ember/error.h"
#include "udf/udf_spec_codec.h"

namespace ember::dist {

namespace {

/// Replies waiting for their actor, by key. A key may name the rank its replies come from; once
/// that rank is lost, a wait on the key with nothing queued gets a Failed reply carrying the
/// loss (every time: an actor's call and then its stop both end), and a key feeding a shared
/// box puts one such reply in the box (its reader takes each key's end once).
class ReplyRouter {
 public:
  uint64_t open(int rank) {
    std::lock_guard lock(mu_);
    const uint64_t key = next_key_++;
    boxes_[key];
    if (rank >= 0) rank_of_[key] = rank;
    return key;
  }
  /// A key whose messages go to `box`'s queue (which stays open at least as long).
  uint64_t open_into(uint64_t box, int rank) {
    std::lock_guard lock(mu_);
    const uint64_t key = next_key_++;
    into_[key] = box;
    if (rank >= 0) {
      rank_of_[key] = rank;
      if (auto lost = lost_.find(rank); lost != lost_.end()) queue_failure(key, lost->second);
    }
    return key;
  }
  void close(uint64_t key) {
    std::lock_guard lock(mu_);
    boxes_.erase(key);
    into_.erase(key);
    rank_of_.erase(key);
  }
  void deliver(Incoming message) {
    uint64_t key = message_key(message.bytes());
    {
      std::lock_guard lock(mu_);
      // A lost rank that wakes up again stays lost: its keys have had their answer.
      if (lost_.count(message.source)) return;
      if (auto shared = into_.find(key); shared != into_.end()) key = shared->second;
      auto it = boxes_.find(key);
      if (it == boxes_.end()) return;  // an actor that has gone: nothing waits for it
      it->second.push_back(std::move(message));
    }
    arrived_.notify_all();
  }
  /// Rank `rank` is lost: waits on its keys end with a UdfError saying `why`, now and later;
  /// nothing more from it is delivered.
  void lose(int rank, const std::string& why) {
    {
      std::lock_guard lock(mu_);
      if (!lost_.emplace(rank, why).second) return;
      for (const auto& [key, r] : rank_of_)
        if (r == rank && into_.count(key)) queue_failure(key, why);
    }
    arrived_.notify_all();
  }
  Incoming wait(uint64_t key) {
    std::unique_lock lock(mu_);
    for (;;) {
      auto& box = boxes_.at(key);
      if (!box.empty()) {
        Incoming m = std::move(box.front());
        box.pop_front();
        return m;
      }
      if (auto r = rank_of_.find(key); r != rank_of_.end())
        if (auto lost = lost_.find(r->second); lost != lost_.end())
          return failure(key, lost->first, lost->second);
      arrived_.wait(lock);
    }
  }

 private:
  static Incoming failure(uint64_t key, int rank, const std::string& why) {
    Incoming failed;
    failed.source = rank;
    failed.tag = kTagControl;
    failed.control = failure_message(key, std::make_exception_ptr(UdfError(why)));
    return failed;
  }
  /// Queues `key`'s end in its shared box (a key of open_into).
  void queue_failure(uint64_t key, const std::string& why) {
    auto it = boxes_.find(into_.at(key));
    if (it != boxes_.end()) it->second.push_back(failure(key, rank_of_.at(key), why));
  }

  std::mutex mu_;
  std::condition_variable arrived_;
  std::map<uint64_t, std::deque<Incoming>> boxes_;  // guarded by mu_
  std::map<uint64_t, uint64_t> into_;               // guarded by mu_; key -> its box's key
  std::map<uint64_t, int> rank_of_;                 // guarded by mu_; key -> the rank replying
  std::map<int, std::string> lost_;                 // guarded by mu_; lost rank -> why
  uint64_t next_key_ = 1;                           // guarded by mu_
};

ReplyRouter& router() {
  static ReplyRouter r;
  return r;
}

/// The remote actors constructed and not yet stopped, by their pool's spec.
class HostedActors {
 public:
  void add(const UdfSpec* spec, HostedActor a) {
    std::lock_guard lock(mu_);
    by_spec_[spec].push_back(a);
  }
  void remove(const UdfSpec* spec, HostedActor a) {
    std::lock_guard lock(mu_);
    auto& v = by_spec_[spec];
    std::erase_if(v, [&](const HostedActor& h) { return h.rank == a.rank && h.key == a.key; });
    if (v.empty()) by_spec_.erase(spec);
  }
  std::vector<HostedActor> of(const UdfSpec* spec) {
    std::lock_guard lock(mu_);
    auto it = by_spec_.find(spec);
    return it == by_spec_.end() ? std::vector<HostedActor>{} : it->second;
  }

 private:
  std::mutex mu_;
  std::map<const UdfSpec*, std::vector<HostedActor>> by_spec_;  // guarded by mu_
};

HostedActors& hosted() {
  static HostedActors h;
  return h;
}

/// The count of constructions of each remote actor that is up, by key: the rank that hosts it
/// may call it without rank 0 (its own partitions), and reports what it saw at the end.
class LiveInits {
 public:
  void add(uint64_t key, std::atomic<int64_t>* inits) {
    std::lock_guard lock(mu_);
    by_key_[key] = inits;
  }
  void remove(uint64_t key) {
    std::lock_guard lock(mu_);
    by_key_.erase(key);
  }
  void raise(uint64_t key, int64_t seen) {
    std::lock_guard lock(mu_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    int64_t now = it->second->load(std::memory_order_relaxed);
    while (now < seen && !it->second->compare_exchange_weak(now, seen)) {
    }
  }

 private:
  std::mutex mu_;
  std::map<uint64_t, std::atomic<int64_t>*> by_key_;  // guarded by mu_
};

LiveInits& live_inits() {
  static LiveInits l;
  return l;
}

class RemoteActor final : public Actor {
 public:
  RemoteActor(Transport& transport, std::shared_ptr<const UdfSpec> spec, ActorContext ctx, int rank)
      : transport_(transport), spec_(std::move(spec)), ctx_(std::move(ctx)), rank_(rank) {}
  ~RemoteActor() override { stop(); }

  void start() override {
    key_ = router().open(rank_);
    process::MessageWriter out;
    out.begin(process::Op::Init);
    out.put(key_);
    out.put_string(encode_udf_spec(*spec_));
    out.put(static_cast<int32_t>(ctx_.actor_id));
    out.put(ctx_.num_cpus);
    out.put(static_cast<int64_t>(ctx_.memory_bytes));
    out.put(static_cast<uint32_t>(ctx_.gpu_ids.size()));
    for (int id : ctx_.gpu_ids) out.put(static_cast<int32_t>(id));
    transport_.send(rank_, kTagControl, out.bytes());
    started_ = true;
    Incoming reply = router().wait(key_);
    process::MessageReader in(reply.bytes());
    in.get<uint64_t>();
    if (in.header().op == process::Op::Failed) {
      stopped_ = true;  // nothing lives there to stop
      router().close(key_);
      raise_failure(in, rank_);
    }
    inits_.store(in.get<int64_t>(), std::memory_order_relaxed);
    hosted().add(spec_.get(), {rank_, key_});
    live_inits().add(key_, &inits_);
  }

  Column call(const Batch& args) override {
    // A key of its own for each call's reply: with max_concurrency, several calls wait at once.
    const ScopedReplyKey reply_key(rank_);
    process::MessageWriter head;
    head.begin(process::Op::Call);
    head.put(key_);
    head.put(int32_t{0});  // the reply comes here, to rank 0
    head.put(reply_key.key());
    head.put(args.num_rows());
    std::vector<std::string> names;
    for (int i = 0; i < args.num_columns(); ++i) names.push_back(args.schema().field(i).name);
    transport_.send(rank_, kTagData, gather_columns(head, args.columns(), names));
    Incoming reply = router().wait(reply_key.key());
    process::MessageReader in(reply.bytes());
    in.get<uint64_t>();
    if (in.header().op == process::Op::Failed) raise_failure(in, rank_);
    if (in.header().op != process::Op::Result || !reply.data)
      throw Error("rank " + std::to_string(rank_) + ": unexpected reply to a call");
    inits_.store(in.get<int64_t>(), std::memory_order_relaxed);
    UnpackedColumns result = unpack_columns(in, reply.data);
    if (result.columns.size() != 1)
      throw Error("rank " + std::to_string(rank_) + ": a result of " +
                  std::to_string(result.columns.size()) + " columns");
    return std::move(result.columns[0]);
  }

  void stop() override {
    if (!started_ || stopped_) return;
    stopped_ = true;
    hosted().remove(spec_.get(), {rank_, key_});
    live_inits().remove(key_);
    process::MessageWriter out;
    out.begin(process::Op::Stop);
    out.put(key_);
    transport_.send(rank_, kTagControl, out.bytes());
    // The Stop reply, or a Failed one (a lost rank: nothing there to wait for any more).
    Incoming reply = router().wait(key_);
    process::MessageReader in(reply.bytes());
    in.get<uint64_t>();
    if (in.header().op == process::Op::Stop)
      inits_.store(in.get<int64_t>(), std::memory_order_relaxed);
    router().close(key_);
  }

  int64_t inits() const override { return inits_.load(std::memory_order_relaxed); }
  int host() const override { return rank_; }

 private:
  Transport& transport_;
  std::shared_ptr<const UdfSpec> spec_;
  ActorContext ctx_;
  int rank_;
  uint64_t key_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<int64_t> inits_{0};
};

}  // namespace

std::unique_ptr<Actor> make_remote_actor(Transport& transport, std::shared_ptr<const UdfSpec> spec,
                                         ActorContext ctx, int rank) {
  return std::make_unique<RemoteActor>(transport, std::move(spec), std::move(ctx), rank);
}

void open_reply_routing() {
  router();
  hosted();
  live_inits();
}

std::vector<HostedActor> hosted_actors(const UdfSpec* spec) { return hosted().of(spec); }

void note_hosted_inits(uint64_t key, int64_t inits) { live_inits().raise(key, inits); }

uint64_t reply_key_open(int rank) { return router().open(rank); }

uint64_t reply_key_open_into(uint64_t box, int rank) { return router().open_into(box, rank); }

void lose_rank(int rank, const std::string& why) { router().lose(rank, why); }

Incoming reply_wait(uint64_t key) { return router().wait(key); }

void reply_key_close(uint64_t key) { router().close(key); }

void route_reply(Incoming message) { router().deliver(std::move(message)); }

}  // namespace ember::dist
