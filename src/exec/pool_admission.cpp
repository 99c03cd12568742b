// Borrowing warm pools from a session and admitting the rest.
#include "exec/pool_admission.h"

#include "ember/error.h"
#include "exec/session_access.h"

namespace ember {
namespace {

/// The session to run in, if any: a closed one, or one under the MPI runner (whose actors
/// live on other ranks), runs the query as without.
std::shared_ptr<WarmPools> session_of(const RunOptions& options, const ClusterRuntime* cluster) {
  if (!options.session) return nullptr;
  auto warm = detail::SessionAccess::pools(*options.session);
  if (warm->closed()) return nullptr;
  if (cluster && cluster->ranks() > 1) return nullptr;
  return warm;
}

}  // namespace

AdmittedPools admit_pools(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                          const RunOptions& options, ClusterRuntime* cluster) {
  AdmittedPools out;
  out.session = session_of(options, cluster);
  out.lent.resize(pools.size());
  out.loans.assign(pools.size(), 0);
  if (!out.session) {
    out.placement = place_actors(pools, options.resources, cluster ? &cluster->placer() : nullptr,
                                 options.wait_for_resources);
    return out;
  }
  WarmPools& session = *out.session;
  auto resources = ResourcePool::for_run(options.resources);
  std::vector<PoolGrant> borrowed(pools.size());
  std::vector<size_t> fresh_index;
  std::vector<std::shared_ptr<const UdfSpec>> fresh;
  for (size_t i = 0; i < pools.size(); ++i) {
    WarmPools::Loan loan = session.borrow(*pools[i], *resources);
    if (loan.pool) {
      out.lent[i] = std::move(loan.pool);
      out.loans[i] = loan.id;
      borrowed[i] = std::move(loan.grant);
    } else {
      fresh_index.push_back(i);
      fresh.push_back(pools[i]);
    }
  }
  Placement admitted;
  try {
    try {
      admitted = place_locally(fresh, options.resources);
    } catch (const ResourceError&) {
      // The session's own idle actors of other UDFs may be what is in the way: they go first,
      // before any waiting for other queries.
      const bool evicted = session.evict_idle();
      if (!evicted && options.wait_for_resources.count() <= 0) throw;
      admitted = place_locally(fresh, options.resources, options.wait_for_resources);
    }
  } catch (...) {
    return_loans(out);
    throw;
  }
  Placement& p = out.placement;
  p.pools.resize(pools.size());
  p.grants.resize(pools.size());
  p.cpus_left = admitted.cpus_left;
  p.ranks = 1;
  for (size_t j = 0; j < fresh_index.size(); ++j) {
    const size_t i = fresh_index[j];
    p.pools[i] = std::move(admitted.pools[j]);
    p.grants[i] = admitted.grants[j];
    // Its hold now lives as long as the pool does, in the session.
    out.loans[i] = session.adopt(*pools[i], *resources, admitted.local.take_pool(j));
  }
  for (size_t i = 0; i < pools.size(); ++i) {
    if (!out.lent[i]) continue;
    for (const ActorContext& ctx : borrowed[i].actors) p.pools[i].push_back({ctx, 0, nullptr});
    p.grants[i] = borrowed[i];
  }
  return out;
}

void return_loans(AdmittedPools& admitted) {
  if (!admitted.session) return;
  for (size_t i = 0; i < admitted.loans.size(); ++i) {
    if (admitted.loans[i] == 0) continue;
    admitted.session->give_back(admitted.loans[i], std::move(admitted.lent[i]));
    admitted.loans[i] = 0;
  }
}

}  // namespace ember
