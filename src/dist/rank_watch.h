// Heartbeats between ranks and the watch over them: every rank speaks at least once per
// heartbeat interval, whatever its pipelines are doing, and a watched rank silent past the
// limit is reported once. Rank 0 watches every other rank; a worker rank watches rank 0.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dist/rank_liveness.h"
#include "dist/rank_timeout.h"
#include "dist/transport.h"

namespace ember::dist {

/// Rank to rank: "still here", carrying the sender's limit in seconds (a double). A worker rank
/// adopts rank 0's, so that its heartbeats fit rank 0's limit even where its own environment
/// lacks EMBER_RANK_TIMEOUT_S.
inline constexpr int kTagHeartbeat = 6;

/// The watch thread. It never waits on a pipeline, a pool or MPI: sends only queue (the
/// transport's thread makes every MPI call), and its sleeps end at once on stop().
class RankWatch {
 public:
  /// Called on the watch thread, once per rank, when `rank` has sent nothing for longer than
  /// the limit times the patience; `limit` is the limit as configured (without patience).
  using SilenceHandler = std::function<void(int rank, double limit_seconds)>;
  /// Queues one heartbeat for rank `dest` (Transport::send in the runner; a fake in tests).
  using Sender = std::function<void(int dest, std::string bytes)>;

  RankWatch() = default;
  RankWatch(const RankWatch&) = delete;
  RankWatch& operator=(const RankWatch&) = delete;
  ~RankWatch() { stop(); }

  /// Starts the thread: a heartbeat to each of `peers` at once and every heartbeat interval,
  /// and a look at their silence several times per interval. `patience` (>= 1) stretches the
  /// limit: a worker rank gives rank 0 longer, so that rank 0, which can end the query cleanly
  /// and name the rank, is the one that reports a silence between them. Call once.
  void start(int ranks, std::vector<int> peers, RankTimeout timeout, double patience, Sender send,
             SilenceHandler on_silent);

  /// The transport's thread: a message from `m.source` arrived. True when it was a heartbeat
  /// (nothing else to do with it). Lock-free for every other message.
  bool take(const Incoming& m);

  /// Stops watching `rank` (it said goodbye). Any thread; idempotent.
  void unwatch(int rank);

  /// Ends the thread (no more heartbeats, no more reports). Idempotent; any thread but the
  /// watch thread itself.
  void stop();

 private:
  void run();
  RankTimeout timeout();

  std::vector<int> peers_;
  double patience_ = 1;
  Sender send_;
  SilenceHandler on_silent_;
  std::optional<RankLiveness> liveness_;  ///< set by start(), before the thread runs
  std::mutex mu_;
  std::condition_variable wake_;
  RankTimeout timeout_;    // guarded by mu_: rank 0's, once a worker has heard it
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace ember::dist
