// A worker rank's service: it hosts the actors rank 0 places on it, each on a thread of its
// own (a thread or process actor, as the UDF's isolation says), until rank 0's program ends.
#pragma once

#include "dist/mpi_transport.h"

namespace ember::dist {

/// Serves rank 0 until it sends kTagShutdown, then stops every actor and returns. `handler`
/// must be made the transport's handler (see launch.cpp) before the transport starts.
class RankServer {
 public:
  /// The handler to give Transport::start: queues each message for its actor.
  static void handle(Incoming message);
  /// Blocks until shutdown; every hosted actor is destroyed when it returns.
  static void run();
};

}  // namespace ember::dist
