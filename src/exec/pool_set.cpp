// Parallel start and orderly stop of a query's actor pools.
#include "exec/pool_set.h"

#include <thread>

namespace ember {

PoolSet::PoolSet(const std::vector<std::shared_ptr<const UdfSpec>>& specs,
                 const Placement& placement) {
  for (size_t i = 0; i < specs.size(); ++i) {
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

void PoolSet::start() {
  std::vector<std::exception_ptr> errors(pools_.size());
  std::vector<std::thread> starters;
  for (size_t i = 0; i < pools_.size(); ++i) {
    starters.emplace_back([this, i, &errors] {
      try {
        pools_[i]->start();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : starters) t.join();
  for (auto& e : errors) {
    if (e) {
      stop();
      std::rethrow_exception(e);
    }
  }
}

void PoolSet::stop() {
  for (auto& p : pools_) p->stop();
}

}  // namespace ember
