// The actor pools of one query: launched together as its work begins, each stopped as soon as
// its input has ended, and any still up stopped (or handed back to their session) after.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "exec/actor_placement.h"
#include "exec/warm_pools.h"
#include "udf/actor_pool.h"

namespace ember {

/// Owns a query's pools; stop() (or destruction) tears every one down. Not thread-safe.
class PoolSet {
 public:
  /// One pool per spec, its actors where `placement` put them (remote ones through their maker).
  /// Where `lent` has a pool (borrowed from `session` under `loans[i]`), that one is used
  /// instead: it is started already and goes back to the session at stop().
  PoolSet(const std::vector<std::shared_ptr<const UdfSpec>>& specs, const Placement& placement,
          std::vector<std::unique_ptr<ActorPool>> lent = {},
          std::shared_ptr<WarmPools> session = nullptr, std::vector<uint64_t> loans = {});
  ~PoolSet() { stop(); }
  /// Starts every pool constructing its actors (all in parallel) and returns at once: the
  /// query reads its input meanwhile, and its batches wait for their actors. A construction
  /// that fails fails its pool's work with that error (ActorPool::launch), and `on_failure`
  /// runs with it at once (ActorPool::set_on_failure), as it does for any later failure of a
  /// pool as a whole, until unhook() or stop().
  void launch(std::function<void(const std::exception_ptr&)> on_failure = nullptr);
  /// Removes launch()'s `on_failure` from every pool: once this returns, it is not running and
  /// will not run again. Call before what it refers to goes away.
  void unhook();
  /// Waits for every pool's actors to have constructed and rethrows the first failure, in
  /// pool order. A query calls it before it succeeds, so that a pool no batch reached still
  /// reports a constructor that threw.
  void wait_started();
  /// Pool i's input has ended and its last batch has returned: a pool of the query's own is
  /// stopped now (its actors destroyed) and true returned, so that the caller releases its
  /// resources; one of a session stays warm until stop() and false is returned.
  bool finish(size_t i);
  /// Stops the query's own pools and gives the session's back. Afterwards pools() holds null
  /// where a pool went back to its session, so read figures before.
  void stop();
  std::vector<std::unique_ptr<ActorPool>>& pools() { return pools_; }
  /// Pool i's figures for this query: a warm pool's earlier queries are not counted.
  UdfStats stats(size_t i) const;
  std::vector<ActorPool::ActorFigures> figures(size_t i) const;

 private:
  void make_pools(const std::vector<std::shared_ptr<const UdfSpec>>& specs,
                  const Placement& placement, std::vector<std::unique_ptr<ActorPool>>& lent);
  std::vector<std::unique_ptr<ActorPool>> pools_;
  std::shared_ptr<WarmPools> session_;
  std::vector<uint64_t> loans_;  ///< per pool: its loan or registration in session_; 0 = none
  std::vector<UdfStats> baseline_;
  std::vector<std::vector<ActorPool::ActorFigures>> baseline_figures_;
};

}  // namespace ember
