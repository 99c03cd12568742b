// Bump allocation of UDF result buffers inside the worker's shared result region.
#include "udf/process/result_arena.h"

#include <algorithm>

#include "core/buffer_access.h"

namespace ember::process {

namespace {

constexpr size_t kAlign = 64;

size_t padded(size_t bytes) { return (std::max<size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign; }

}  // namespace

void ResultArena::begin(std::shared_ptr<SharedMapping> region) {
  region_ = std::move(region);
  owner_.reset();
  in_use_.reset();
  used_ = 0;
  open_ = region_ && region_->size() > 0;
}

void ResultArena::end() {
  open_ = false;
  owner_.reset();  // from now on only the buffers handed out keep the flag up
}

std::shared_ptr<Buffer> ResultArena::take(int64_t size) {
  const size_t bytes = padded(static_cast<size_t>(size));
  if (!open_ || bytes > region_->size() - used_) return nullptr;
  if (!owner_) {
    in_use_ = std::make_shared<std::atomic<bool>>(true);
    owner_ = std::shared_ptr<SharedMapping>(region_.get(),
                                            [map = region_, in_use = in_use_](SharedMapping*) {
                                              in_use->store(false, std::memory_order_release);
                                            });
  }
  uint8_t* at = region_->data() + used_;
  used_ += bytes;
  return detail::BufferAccess::wrap(at, size, std::shared_ptr<void>(owner_));
}

bool ResultArena::holds(const Buffer& buffer) const {
  if (!region_ || used_ == 0) return false;
  const uint8_t* p = buffer.data();
  return p >= region_->data() && p < region_->data() + used_;
}

uint64_t ResultArena::offset_of(const Buffer& buffer) const {
  return static_cast<uint64_t>(buffer.data() - region_->data());
}

}  // namespace ember::process
