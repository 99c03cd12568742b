// Pool calls between ranks: a call message carries the caller's reply key; the result (or the
// error) comes back to that key, where the caller's proxy actor waits.
#include "dist/pool_service.h"

#include <atomic>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"

namespace ember::dist {

namespace {

struct Service {
  std::shared_mutex mu;
  std::map<uint64_t, QueryContext*> queries;  // guarded by mu
};

Service& service() {
  static Service s;
  return s;
}

void reply_failure(Transport& transport, int rank, uint64_t key, const std::exception_ptr& error) {
  transport.send(rank, kTagControl, failure_message(key, error));
}

class PoolServiceActor final : public Actor {
 public:
  PoolServiceActor(Transport& transport, uint64_t query, int pool)
      : transport_(transport), query_(query), pool_(pool) {}

  void start() override {}

  Column call(const Batch& args) override {
    // Each call its own reply key: with max_concurrency, several calls wait here at once.
    const ScopedReplyKey reply_key;
    process::MessageWriter head;
    head.begin(process::Op::Call);
    head.put(reply_key.key());
    head.put(query_);
    head.put(static_cast<int32_t>(pool_));
    head.put(args.num_rows());
    std::vector<std::string> names;
    for (int i = 0; i < args.num_columns(); ++i) names.push_back(args.schema().field(i).name);
    transport_.send(0, kTagPoolCall, gather_columns(head, args.columns(), names));
    Incoming reply = reply_wait(reply_key.key());
    process::MessageReader in(reply.bytes());
    in.get<uint64_t>();
    // The pool on rank 0 already named the rank of the actor that failed, and ran the call
    // again as often as the UDF allows: this pool must not run it again.
    if (in.header().op == process::Op::Failed) {
      try {
        raise_failure(in, -1);
      } catch (const Cancelled&) {
        throw;
      } catch (const UdfError& e) {
        throw SettledCallError(e.what());
      }
    }
    if (in.header().op != process::Op::Result || !reply.data)
      throw Error("rank 0: unexpected reply to a pool call");
    in.get<int64_t>();
    UnpackedColumns result = unpack_columns(in, reply.data);
    if (result.columns.size() != 1) throw Error("rank 0: a pool call's result is not one column");
    return std::move(result.columns[0]);
  }

  void stop() override {}
  int64_t inits() const override { return 0; }

 private:
  Transport& transport_;
  uint64_t query_;
  int pool_;
};

/// Calls an actor hosted on this very rank: the call goes to its host, the reply to this key.
class OwnActorProxy final : public Actor {
 public:
  OwnActorProxy(Transport& transport, uint64_t host)
      : transport_(transport), self_(transport.rank()), host_(host) {}

  void start() override {}

  Column call(const Batch& args) override {
    // Each call its own reply key: with max_concurrency, several calls wait here at once.
    const ScopedReplyKey reply_key;
    process::MessageWriter head;
    head.begin(process::Op::Call);
    head.put(host_);
    head.put(static_cast<int32_t>(self_));
    head.put(reply_key.key());
    head.put(args.num_rows());
    std::vector<std::string> names;
    for (int i = 0; i < args.num_columns(); ++i) names.push_back(args.schema().field(i).name);
    transport_.send(self_, kTagData, gather_columns(head, args.columns(), names));
    Incoming reply = reply_wait(reply_key.key());
    process::MessageReader in(reply.bytes());
    in.get<uint64_t>();
    if (in.header().op == process::Op::Failed) raise_failure(in, self_);
    if (in.header().op != process::Op::Result || !reply.data)
      throw Error("rank " + std::to_string(self_) + ": unexpected reply to a call");
    inits_.store(in.get<int64_t>(), std::memory_order_relaxed);
    UnpackedColumns result = unpack_columns(in, reply.data);
    if (result.columns.size() != 1)
      throw Error("rank " + std::to_string(self_) + ": a result of several columns");
    return std::move(result.columns[0]);
  }

  void stop() override {}
  /// The hosted actor's constructions as its last reply said (rank 0 counts them: this rank
  /// reports them at its end, see partition_worker.h).
  int64_t inits() const override { return inits_.load(std::memory_order_relaxed); }

 private:
  Transport& transport_;
  int self_;
  uint64_t host_;
  std::atomic<int64_t> inits_{0};
};

}  // namespace

void open_pool_service(uint64_t query, QueryContext* context) {
  std::unique_lock lock(service().mu);
  service().queries[query] = context;
}

void close_pool_service(uint64_t query) {
  std::unique_lock lock(service().mu);
  service().queries.erase(query);
}

void serve_pool_call(Transport& transport, Incoming message) {
  const int from = message.source;
  uint64_t key = 0;
  try {
    process::MessageReader in(message.bytes());
    key = in.get<uint64_t>();
    const auto query = in.get<uint64_t>();
    const auto pool = in.get<int32_t>();
    const auto rows = in.get<int64_t>();
    if (!message.data) throw Error("a pool call without its batch");
    Batch args = to_batch(unpack_columns(in, message.data), rows);
    // Shared: calls are handed over concurrently with nothing but close, which waits for them.
    std::shared_lock lock(service().mu);
    auto it = service().queries.find(query);
    if (it == service().queries.end()) throw Cancelled("the query has ended");
    it->second->pool(pool).dispatch_foreign(
        std::move(args), [&transport, from, key](CallResult result) {
          if (auto* error = std::get_if<std::exception_ptr>(&result)) {
            reply_failure(transport, from, key, *error);
            return;
          }
          process::MessageWriter head;
          head.begin(process::Op::Result);
          head.put(key);
          head.put(int64_t{0});
          transport.send(from, kTagData, gather_columns(head, {std::get<Column>(result)}, {""}));
        });
  } catch (...) {
    reply_failure(transport, from, key, std::current_exception());
  }
}

std::unique_ptr<Actor> make_pool_service_actor(Transport& transport, uint64_t query, int pool) {
  return std::make_unique<PoolServiceActor>(transport, query, pool);
}

std::unique_ptr<Actor> make_own_actor_proxy(Transport& transport, uint64_t key) {
  return std::make_unique<OwnActorProxy>(transport, key);
}

}  // namespace ember::dist
