// Where an autoscaling pool's added actors get their resources: the query's resource ledger.
#pragma once

#include <memory>

#include "resources/resource_pool.h"
#include "udf/actor_pool.h"

namespace ember {

/// Lets `pool` (if it autoscales and has not started) take one actor's share of `resources`
/// for each actor it adds, when free, and give it back when that actor is destroyed.
void install_growth(ActorPool& pool, std::shared_ptr<ResourcePool> resources);

}  // namespace ember
