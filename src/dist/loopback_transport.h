// A cluster of ranks inside one process: each rank's Transport is an endpoint of one
// LoopbackNetwork, which hands messages between them without MPI. The runner's protocol code
// runs on it unchanged, so that it is tested without mpirun; messages arrive as MPI's would
// (per sender in order; columns in pooled memory, copied once as a receive copies them).
#pragma once

#include <memory>
#include <vector>

#include "dist/transport.h"

namespace ember::dist {

class LoopbackEndpoint;

class LoopbackNetwork {
 public:
  /// `ranks` endpoints, numbered from 0, none started.
  explicit LoopbackNetwork(int ranks);
  /// Stops every endpoint still delivering (what is queued for it is dropped).
  ~LoopbackNetwork();
  LoopbackNetwork(const LoopbackNetwork&) = delete;
  LoopbackNetwork& operator=(const LoopbackNetwork&) = delete;

  Transport& endpoint(int rank);
  int ranks() const { return static_cast<int>(endpoints_.size()); }
  /// Rank `rank` falls silent, as a stopped process would: what it sends from now on and what
  /// is sent to it are dropped, and it delivers nothing more.
  void cut(int rank);

 private:
  friend class LoopbackEndpoint;
  /// Queues `message` for rank `dest` (dropped when either end is cut).
  void deliver(int dest, Incoming message);

  std::vector<std::unique_ptr<LoopbackEndpoint>> endpoints_;
};

}  // namespace ember::dist
