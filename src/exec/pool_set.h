// The actor pools of one query: started together before any work, stopped together after.
#pragma once

#include <memory>
#include <vector>

#include "exec/actor_placement.h"
#include "udf/actor_pool.h"

namespace ember {

/// Owns a query's pools; stop() (or destruction) tears every one down. Not thread-safe.
class PoolSet {
 public:
  /// One pool per spec, its actors where `placement` put them (remote ones through their maker).
  PoolSet(const std::vector<std::shared_ptr<const UdfSpec>>& specs, const Placement& placement);
  ~PoolSet() { stop(); }
  /// Starts every pool at once (each constructs its actors in parallel) and waits. On any
  /// failure, stops them all and rethrows the first error.
  void start();
  void stop();
  std::vector<std::unique_ptr<ActorPool>>& pools() { return pools_; }

 private:
  std::vector<std::unique_ptr<ActorPool>> pools_;
};

}  // namespace ember
