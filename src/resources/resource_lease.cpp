// ResourceLease: an admitted query's hold on its pools' resources, given back exactly once.
#include <algorithm>
#include <utility>

#include "resources/resource_ledger.h"
#include "resources/resource_pool.h"

namespace ember {

ResourceLease::ResourceLease(ResourceLease&& other) noexcept
    : owner_(std::move(other.owner_)),
      pools_(std::move(other.pools_)),
      parts_(std::move(other.parts_)),
      cpus_left_(other.cpus_left_),
      id_(std::exchange(other.id_, 0)) {}

ResourceLease& ResourceLease::operator=(ResourceLease&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
    pools_ = std::move(other.pools_);
    parts_ = std::move(other.parts_);
    cpus_left_ = other.cpus_left_;
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

ResourceLease::~ResourceLease() { release(); }

void ResourceLease::release() {
  auto owner = std::move(owner_);
  owner_ = nullptr;
  if (!owner) return;
  // A lease that never had a pool taken from it gives back its whole admission at once.
  if (std::none_of(parts_.begin(), parts_.end(), [](size_t p) { return p == kGone; })) {
    owner->release(id_);
  } else {
    for (size_t p : parts_)
      if (p != kGone) owner->release_pool(id_, p);
  }
  std::fill(parts_.begin(), parts_.end(), kGone);
}

void ResourceLease::release_pool(size_t i) {
  if (!owner_ || i >= parts_.size() || parts_[i] == kGone) return;
  owner_->release_pool(id_, parts_[i]);
  parts_[i] = kGone;
}

ResourceLease ResourceLease::take_pool(size_t i) {
  ResourceLease taken;
  if (!owner_ || i >= parts_.size() || parts_[i] == kGone) return taken;
  taken.owner_ = owner_;
  taken.id_ = id_;
  taken.pools_ = {pools_[i]};
  taken.parts_ = {parts_[i]};
  taken.cpus_left_ = cpus_left_;
  parts_[i] = kGone;
  return taken;
}

}  // namespace ember
