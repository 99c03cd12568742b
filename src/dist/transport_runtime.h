// The cluster as rank 0's queries see it, over any Transport: the placer over every rank's
// resources and the spreader of first pipelines (exec's ClusterRuntime), and what rank 0 does
// with the messages the other ranks send it. launch.cpp makes one over MPI; tests make one over
// a LoopbackNetwork.
#pragma once

#include <vector>

#include "dist/cluster_placement.h"
#include "dist/cluster_spreader.h"
#include "dist/transport.h"
#include "exec/cluster_runtime.h"

namespace ember::dist {

class TransportRuntime final : public ClusterRuntime {
 public:
  /// `transport`: rank 0's (it outlives the runtime); `members`: every rank's resources, rank 0
  /// first.
  TransportRuntime(Transport& transport, std::vector<RankResources> members);
  int ranks() const override { return ranks_; }
  ActorPlacer& placer() override { return placer_; }
  PartitionSpreader& spreader() override { return spreader_; }

 private:
  int ranks_;
  ClusterPlacer placer_;
  ClusterSpreader spreader_;
};

/// Rank 0's handling of a message from another rank (besides heartbeats and goodbyes, which
/// launch.cpp takes first): a UDF batch for a pool is dispatched to it (kTagPoolCall), and
/// anything else is a reply, routed to whoever waits for it.
void serve_rank_zero(Transport& transport, Incoming message);

}  // namespace ember::dist
