// A cluster of ranks inside the test process: a LoopbackNetwork, a RankServer on every rank but
// 0, and rank 0's runtime, so that the runner's protocol (placement of remote actors, spread
// pipelines, pool calls, partial states) runs whole queries without mpirun.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dist/loopback_transport.h"
#include "dist/rank_server.h"
#include "dist/remote_actor.h"
#include "dist/transport_runtime.h"

namespace ember::dist::test {

class LoopbackCluster {
 public:
  /// `ranks` ranks of `cpus` CPUs and 1 GiB each.
  explicit LoopbackCluster(int ranks, double cpus = 2) : network_(ranks) {
    open_reply_routing();
    std::vector<RankResources> members;
    for (int r = 0; r < ranks; ++r)
      members.push_back({r, "rank" + std::to_string(r), Resources{cpus, 0, int64_t{1} << 30}, {}});
    for (int r = 1; r < ranks; ++r)
      servers_.push_back(std::make_unique<RankServer>(network_.endpoint(r)));
    Transport& zero = network_.endpoint(0);
    zero.start([&zero](Incoming m) { serve_rank_zero(zero, std::move(m)); });
    for (int r = 1; r < ranks; ++r) {
      RankServer* server = servers_[static_cast<size_t>(r - 1)].get();
      network_.endpoint(r).start([server](Incoming m) { server->handle(std::move(m)); });
    }
    runtime_ = std::make_unique<TransportRuntime>(zero, std::move(members));
  }
  ~LoopbackCluster() {
    runtime_.reset();
    // Delivery first, so that no handler runs into a server being destroyed.
    for (int r = 0; r < network_.ranks(); ++r)
      network_.endpoint(r).halt(std::chrono::milliseconds(0));
    servers_.clear();
  }
  LoopbackCluster(const LoopbackCluster&) = delete;
  LoopbackCluster& operator=(const LoopbackCluster&) = delete;

  ClusterRuntime* runtime() { return runtime_.get(); }
  LoopbackNetwork& network() { return network_; }

 private:
  LoopbackNetwork network_;
  std::vector<std::unique_ptr<RankServer>> servers_;
  std::unique_ptr<TransportRuntime> runtime_;
};

}  // namespace ember::dist::test
