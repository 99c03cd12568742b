// Admitting an autoscaling pool's added actors one at a time into the resource ledger.
#include "exec/pool_growth.h"

#include <map>
#include <mutex>

#include "ember/error.h"

namespace ember {
namespace {

/// The leases of a pool's added actors, by actor id.
struct GrownLeases {
  std::mutex mu;
  std::map<int, ResourceLease> held;  // guarded by mu
};

}  // namespace

void install_growth(ActorPool& pool, std::shared_ptr<ResourcePool> resources) {
  const UdfSpec& spec = pool.spec();
  if (spec.max_actors <= spec.concurrency) return;
  auto leases = std::make_shared<GrownLeases>();
  const PoolRequest one{spec.name, 1, spec.num_cpus, spec.num_gpus, spec.memory_bytes};
  ActorPool::Growth growth;
  growth.acquire = [resources, leases, one](int actor_id) -> std::optional<ActorContext> {
    ResourceLease lease;
    try {
      lease = resources->admit({one});
    } catch (const ResourceError&) {
      return std::nullopt;  // no room now: growth never waits, nor takes what others hold
    }
    ActorContext ctx = lease.pools().at(0).actors.at(0);
    ctx.actor_id = actor_id;
    std::lock_guard lock(leases->mu);
    leases->held[actor_id] = std::move(lease);
    return ctx;
  };
  growth.release = [leases](int actor_id) {
    ResourceLease gone;
    {
      std::lock_guard lock(leases->mu);
      auto it = leases->held.find(actor_id);
      if (it == leases->held.end()) return;
      gone = std::move(it->second);
      leases->held.erase(it);
    }
  };
  pool.set_growth(std::move(growth));
}

}  // namespace ember
