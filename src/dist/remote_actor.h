// Rank 0's side of an actor that lives on another rank: an Actor backend that ships each batch
// there as one message and waits for its result, so the actor pool dispatches to it like to
// any other actor (least-loaded, at most two batches in flight per actor).
#pragma once

#include <memory>
#include <stop_token>
#include <vector>

#include "dist/transport.h"
#include "udf/actor.h"

namespace ember::dist {

/// An actor of `spec` constructed on rank `rank`, reached through `transport` (running).
std::unique_ptr<Actor> make_remote_actor(Transport& transport, std::shared_ptr<const UdfSpec> spec,
                                         ActorContext ctx, int rank);

/// An actor that rank 0 placed on another rank, as that rank knows it: its host's key.
struct HostedActor {
  int rank = 0;
  uint64_t key = 0;
};
/// Rank 0: the remote actors of the pool made from `spec` that are up now.
std::vector<HostedActor> hosted_actors(const UdfSpec* spec);
/// Rank 0: the rank hosting remote actor `key` saw it constructed `inits` times (calling it
/// for its own partitions, a process actor's crashed worker restarted): its count rises to
/// that. No effect once the actor has stopped.
void note_hosted_inits(uint64_t key, int64_t inits);

/// Sets up reply routing before the transport starts (so it outlives the transport at exit).
void open_reply_routing();

/// Reply keys for other waits on replies (pool calls, partitions run elsewhere): open one, wait
/// for its messages one at a time, in arrival order, and close it (later messages are dropped).
/// `rank`, when not negative, is the rank the replies come from: once it is lost (lose_rank),
/// a wait on the key with nothing queued gets a Failed reply (a UdfError), however often.
uint64_t reply_key_open(int rank = -1);
/// Another key for the messages of `box` (an open key): what arrives under it joins `box`'s
/// messages, in arrival order; wait on `box`, and close this key before `box`. When `rank` is
/// lost, one Failed reply under this key joins `box`'s messages.
uint64_t reply_key_open_into(uint64_t box, int rank = -1);
Incoming reply_wait(uint64_t key);
void reply_key_close(uint64_t key);

/// A reply key for one call: open while it lives, closed however the call ends. A caller that
/// several threads use at once (an actor with max_concurrency) gives each call its own, so
/// that every call waits for its own reply.
class ScopedReplyKey {
 public:
  explicit ScopedReplyKey(int rank = -1) : key_(reply_key_open(rank)) {}
  ScopedReplyKey(const ScopedReplyKey&) = delete;
  ScopedReplyKey& operator=(const ScopedReplyKey&) = delete;
  ~ScopedReplyKey() { reply_key_close(key_); }
  uint64_t key() const { return key_; }

 private:
  uint64_t key_;
};

/// Rank 0: rank `rank` stopped answering (rank_watch.h). Every wait for a reply from it, now or
/// later, ends with a Failed reply, a UdfError saying `why`; what it sends from now on is
/// dropped. Any thread; idempotent.
void lose_rank(int rank, const std::string& why);

/// Hands a reply from another rank to the remote actor waiting for it (the transport's handler
/// on rank 0).
void route_reply(Incoming message);

}  // namespace ember::dist
