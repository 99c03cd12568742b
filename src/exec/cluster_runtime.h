// What the executor asks of a cluster when the program runs under the MPI runner: where each
// actor goes, and how a query's partitions spread over the ranks. The distributed runner
// (src/dist) implements it and ember::init makes it; a query is handed it (null: one machine),
// so that exec holds no cluster state of its own.
#pragma once

#include "exec/actor_placement.h"
#include "exec/partition_spreading.h"

namespace ember {

class ClusterRuntime {
 public:
  virtual ~ClusterRuntime() = default;
  /// The ranks of the cluster (> 1).
  virtual int ranks() const = 0;
  /// Places and admits a query's actors over the ranks.
  virtual ActorPlacer& placer() = 0;
  /// Spreads a query's first pipeline over the ranks.
  virtual PartitionSpreader& spreader() = 0;
};

}  // namespace ember
