// Join buckets kept on a worker rank between the pipelines of a query.
#include "dist/kept_buckets.h"

#include <string>

#include "ember/error.h"

namespace ember::dist {

void KeptBuckets::keep(uint64_t id, std::shared_ptr<const JoinBuckets> buckets) {
  std::lock_guard lock(mu_);
  kept_[id] = std::move(buckets);
}

std::shared_ptr<const JoinBuckets> KeptBuckets::find(uint64_t id) const {
  std::lock_guard lock(mu_);
  auto it = kept_.find(id);
  if (it == kept_.end())
    throw Error("distributed runner: this rank holds no buckets of join exchange " +
                std::to_string(id) + " (its exchange did not end here)");
  return it->second;
}

void KeptBuckets::forget(uint64_t id) {
  std::lock_guard lock(mu_);
  kept_.erase(id);
}

}  // namespace ember::dist
