// Parallel start, early finish and orderly stop of a query's actor pools.
#include "exec/pool_set.h"

namespace ember {

PoolSet::PoolSet(const std::vector<std::shared_ptr<const UdfSpec>>& specs,
                 const Placement& placement, std::vector<std::unique_ptr<ActorPool>> lent,
                 std::shared_ptr<WarmPools> session, std::vector<uint64_t> loans)
    : session_(std::move(session)), loans_(std::move(loans)) {
  loans_.resize(specs.size(), 0);
  lent.resize(specs.size());
  baseline_.resize(specs.size());
  baseline_figures_.resize(specs.size());
  try {
    make_pools(specs, placement, lent);
  } catch (...) {
    // Nothing of the session's may stay on loan to a query that never ran.
    for (size_t i = 0; i < loans_.size(); ++i)
      if (session_ && loans_[i] != 0)
        session_->give_back(loans_[i],
                            i < pools_.size() ? std::move(pools_[i]) : std::move(lent[i]));
    throw;
  }
}

void PoolSet::make_pools(const std::vector<std::shared_ptr<const UdfSpec>>& specs,
                         const Placement& placement,
                         std::vector<std::unique_ptr<ActorPool>>& lent) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (lent[i]) {
      // Warm from earlier queries: this query's figures start from here.
      baseline_[i] = lent[i]->stats();
      baseline_figures_[i] = lent[i]->actor_figures();
      pools_.push_back(std::move(lent[i]));
      continue;
    }
    std::vector<ActorContext> contexts;
    std::vector<ActorMaker> makers;
    bool remote = false;
    for (const PlacedActor& a : placement.pools.at(i)) {
      contexts.push_back(a.ctx);
      makers.push_back(a.maker);
      remote = remote || a.maker != nullptr;
    }
    if (!remote) makers.clear();
    pools_.push_back(std::make_unique<ActorPool>(specs[i], std::move(contexts), std::move(makers)));
  }
}

void PoolSet::launch(std::function<void(const std::exception_ptr&)> on_failure) {
  if (on_failure)
    for (auto& pool : pools_) pool->set_on_failure(on_failure);
  for (auto& pool : pools_) pool->launch();
}

void PoolSet::unhook() {
  for (auto& pool : pools_)
    if (pool) pool->set_on_failure(nullptr);
}

void PoolSet::wait_started() {
  for (auto& pool : pools_)
    if (pool) pool->wait_started();
}

bool PoolSet::finish(size_t i) {
  if (i >= pools_.size() || !pools_[i] || loans_[i] != 0) return false;
  // Every actor constructs once per query, even one the input was too small to reach.
  pools_[i]->wait_started();
  pools_[i]->stop();
  return true;
}

void PoolSet::stop() {
  unhook();  // a pool handed back to its session outlives this query
  for (size_t i = 0; i < pools_.size(); ++i) {
    if (session_ && loans_[i] != 0) {
      // Kept warm if it can serve again, else stopped there; either way the session's now.
      session_->give_back(loans_[i], std::move(pools_[i]));
      loans_[i] = 0;
    } else if (pools_[i]) {
      pools_[i]->stop();
    }
  }
}

UdfStats PoolSet::stats(size_t i) const {
  UdfStats s = pools_.at(i)->stats();
  const UdfStats& b = baseline_.at(i);
  s.inits -= b.inits;
  s.batches -= b.batches;
  s.rows -= b.rows;
  s.init_seconds -= b.init_seconds;
  s.busy_seconds -= b.busy_seconds;
  s.retries -= b.retries;
  s.timeouts -= b.timeouts;
  s.scale_ups -= b.scale_ups;
  s.scale_downs -= b.scale_downs;
  return s;
}

std::vector<ActorPool::ActorFigures> PoolSet::figures(size_t i) const {
  std::vector<ActorPool::ActorFigures> f = pools_.at(i)->actor_figures();
  const auto& b = baseline_figures_.at(i);
  for (size_t a = 0; a < f.size() && a < b.size(); ++a) {
    f[a].inits -= b[a].inits;
    f[a].rows -= b[a].rows;
    f[a].busy_seconds -= b[a].busy_seconds;
  }
  return f;
}

}  // namespace ember
