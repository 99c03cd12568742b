// Placing a query's actor pools on the ranks of a cluster, by what each actor asks for and what
// each rank has, and admitting them on every rank at once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/run_options.h"
#include "exec/actor_placement.h"

namespace ember::dist {

/// What a rank reported at start-up.
struct RankResources {
  int rank = 0;
  std::string host;
  Resources total;
  std::vector<int> gpu_ids;  ///< device ids behind total.gpus
};

/// Makes the backend of an actor that lives on rank `rank` (> 0).
using RemoteActorMaker = std::function<std::unique_ptr<Actor>(
    std::shared_ptr<const UdfSpec> spec, ActorContext ctx, int rank, std::stop_token doomed)>;

/// The placer the MPI runner installs on rank 0. Each actor, pool by pool, goes to the rank
/// that still fits it and holds the fewest actors of its pool so far (ties: the fewest actors
/// in all, then the lowest rank), so a pool spreads over the ranks that can hold it; whether it
/// fits is decided by that rank's own admission rules (GPU actors only where devices are free;
/// fractional GPUs packed per device). Then every rank admits its share; any failure throws
/// before anything is constructed anywhere. Rank 0's resources are ResourcePool::for_run's
/// (RunOptions::resources overrides them), shared with local queries.
class ClusterPlacer final : public ActorPlacer {
 public:
  /// `ranks`: every rank, by rank (entry 0's resources are replaced by rank 0's pool).
  ClusterPlacer(std::vector<RankResources> ranks, RemoteActorMaker maker);

  int ranks() const override { return static_cast<int>(ranks_.size()); }
  Placement place(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                  const std::optional<Resources>& local) override;
  std::string explain(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                      const std::optional<Resources>& local) override;

  /// Actors per rank of each pool (index: pool, then rank), deciding only: nothing is held.
  /// Throws ResourceError for a pool that cannot be placed, naming what each rank has free.
  std::vector<std::vector<int>> decide(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                                       const std::optional<Resources>& local) const;

 private:
  /// Rank r's resources and devices, with rank 0's taken from its pool.
  RankResources rank_resources(int r, const std::optional<Resources>& local) const;

  std::vector<RankResources> ranks_;
  /// Shared ledgers of ranks 1..n-1 (index 0 unused: rank 0 admits in ResourcePool::for_run).
  std::vector<std::shared_ptr<ResourcePool>> pools_;
  RemoteActorMaker maker_;
};

}  // namespace ember::dist
