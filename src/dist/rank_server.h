// A worker rank's service: it hosts the actors rank 0 places on it, each on a thread of its
// own (a thread or process actor, as the UDF's isolation says), until rank 0's program ends.
#pragma once

#include <memory>

#include "dist/transport.h"

namespace ember::dist {

/// Serves rank 0 until it sends kTagShutdown, then stops every actor. Its handle() must be
/// made the transport's handler before the transport starts (see launch.cpp).
class RankServer {
 public:
  /// `transport`: this rank's (it outlives the server), which hosted actors and partition runs
  /// reply through.
  explicit RankServer(Transport& transport);
  /// Stops every hosted actor and waits for every partition run.
  ~RankServer();
  RankServer(const RankServer&) = delete;
  RankServer& operator=(const RankServer&) = delete;

  /// The transport's handler: queues each message for its actor or partition run.
  void handle(Incoming message);
  /// Blocks until shutdown; every hosted actor is destroyed when it returns.
  void run();

  struct State;

 private:
  Transport& transport_;
  std::unique_ptr<State> state_;
};

}  // namespace ember::dist
