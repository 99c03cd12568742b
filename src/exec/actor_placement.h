// Where a query's actors run: on this machine, or — once the distributed runner has installed
// itself — on the ranks of a cluster. The executor asks through this seam and nothing else.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/run_options.h"
#include "resources/resource_pool.h"
#include "udf/actor.h"
#include "udf/udf_spec.h"

namespace ember {

/// One placed actor: its context (global actor id), its rank, and how to make it (null: a local
/// thread or process actor, by isolation).
struct PlacedActor {
  ActorContext ctx;
  int rank = 0;
  ActorMaker maker;
};

/// Every actor of a query, placed and admitted: what the pools hold until the query ends.
struct Placement {
  /// Per pool (query order), per actor (actor id order).
  std::vector<std::vector<PlacedActor>> pools;
  /// Per pool: what its actors hold, summed over ranks.
  std::vector<PoolGrant> grants;
  /// This rank's hold (released when the query ends).
  ResourceLease local;
  /// Holds on other ranks (released when dropped); null when there are none.
  std::shared_ptr<void> remote;
  /// CPUs this rank's pools leave free for the pipeline threads.
  double cpus_left = 0;
  int ranks = 1;
};

/// Places actors across a cluster. Implemented by the distributed runner (src/dist).
class ActorPlacer {
 public:
  virtual ~ActorPlacer() = default;
  /// Ranks in the cluster (> 1 for an installed placer).
  virtual int ranks() const = 0;
  /// Places and admits every actor of `pools`, all or nothing: on failure throws ResourceError
  /// (naming what each rank has free) and nothing is held or constructed anywhere.
  /// `local` is RunOptions::resources, which overrides this rank's resources.
  virtual Placement place(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                          const std::optional<Resources>& local) = 0;
  /// explain()'s lines on the cluster and where each pool's actors would go.
  virtual std::string explain(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                              const std::optional<Resources>& local) = 0;
};

/// What one pool asks for, as admission sees it.
PoolRequest pool_request(const UdfSpec& spec);
/// Places every actor on this machine (rank 0), admitted by ResourcePool::for_run(local); a
/// request that does not fit waits up to `wait` for other queries to release (in arrival
/// order).
Placement place_locally(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                        const std::optional<Resources>& local,
                        std::chrono::milliseconds wait = std::chrono::milliseconds{0});
/// `cluster`'s decision under the MPI runner, else (null) place_locally.
Placement place_actors(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                       const std::optional<Resources>& local, ActorPlacer* cluster,
                       std::chrono::milliseconds wait = std::chrono::milliseconds{0});

}  // namespace ember
