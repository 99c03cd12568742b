// Admission of a query's actor pools: warm pools borrowed from its session, the rest admitted
// into the resource ledger (waiting for room if the query asked to).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/run_options.h"
#include "exec/actor_placement.h"
#include "exec/cluster_runtime.h"
#include "exec/warm_pools.h"

namespace ember {

/// What admission gave a query; PoolSet takes it from here.
struct AdmittedPools {
  /// Every pool's actors (query order); a borrowed pool's are its warm actors.
  Placement placement;
  /// Per pool: the warm pool borrowed from the session, or null (constructed for the query).
  std::vector<std::unique_ptr<ActorPool>> lent;
  /// The session's warm pools, or null for a query without one.
  std::shared_ptr<WarmPools> session;
  /// Per pool: its loan from (or registration with) `session`; 0 without a session. A pool
  /// registered with the session holds its own lease there, not in placement.local.
  std::vector<uint64_t> loans;
};

/// Admits `pools` for a query run with `options`: with RunOptions::session (locally), each
/// pool a warm one of the session can serve is borrowed, and the others are admitted and
/// registered with the session (if they do not fit, the session's idle pools are destroyed
/// to make room, once). RunOptions::wait_for_resources applies to what is admitted. Throws
/// ResourceError with nothing held or borrowed when the pools do not fit. Under the MPI runner
/// (`cluster`), the actors are placed over the ranks and no session is used.
AdmittedPools admit_pools(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                          const RunOptions& options, ClusterRuntime* cluster);

/// Gives every borrowed or registered pool of `admitted` back to its session, for a query
/// that fails before its PoolSet takes them over.
void return_loans(AdmittedPools& admitted);

}  // namespace ember
