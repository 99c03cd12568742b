// ResourceLease: an admitted query's hold on its pools' resources, given back exactly once.
#include <utility>

#include "resources/resource_ledger.h"
#include "resources/resource_pool.h"

namespace ember {

ResourceLease::ResourceLease(ResourceLease&& other) noexcept
    : owner_(std::move(other.owner_)),
      pools_(std::move(other.pools_)),
      cpus_left_(other.cpus_left_),
      id_(std::exchange(other.id_, 0)) {}

ResourceLease& ResourceLease::operator=(ResourceLease&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
    pools_ = std::move(other.pools_);
    cpus_left_ = other.cpus_left_;
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

ResourceLease::~ResourceLease() { release(); }

void ResourceLease::release() {
  if (auto owner = std::move(owner_)) owner->release(id_);
  owner_ = nullptr;
}

}  // namespace ember
