// The local placement of a query's actors, or a cluster's placer's.
#include "exec/actor_placement.h"

namespace ember {

PoolRequest pool_request(const UdfSpec& spec) {
  return {spec.name, spec.concurrency, spec.num_cpus, spec.num_gpus, spec.memory_bytes};
}

Placement place_locally(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                        const std::optional<Resources>& local, std::chrono::milliseconds wait) {
  std::vector<PoolRequest> requests;
  for (const auto& spec : pools) requests.push_back(pool_request(*spec));
  Placement placement;
  placement.local = ResourcePool::for_run(local)->admit(requests, wait);
  placement.cpus_left = placement.local.cpus_left();
  for (const PoolGrant& grant : placement.local.pools()) {
    std::vector<PlacedActor> actors;
    for (const ActorContext& ctx : grant.actors) actors.push_back({ctx, 0, nullptr});
    placement.pools.push_back(std::move(actors));
    placement.grants.push_back(grant);
  }
  return placement;
}

Placement place_actors(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                       const std::optional<Resources>& local, ActorPlacer* cluster,
                       std::chrono::milliseconds wait) {
  // A cluster admits on every rank at once; waiting there is not supported (yet): it fails.
  if (cluster && cluster->ranks() > 1) return cluster->place(pools, local);
  return place_locally(pools, local, wait);
}

}  // namespace ember
