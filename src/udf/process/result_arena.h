// Where a worker's UDF builds its large result buffers during a call: straight in the shared
// result region, so that a result made of them crosses to the driver without a copy.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/buffer_source.h"
#include "udf/process/shared_region.h"

namespace ember::process {

/// Hands out a result region front to back (64-byte aligned, never reclaimed within a call)
/// to the buffers a UDF allocates while installed with ScopedBufferSource. Used by the worker's
/// serving thread only.
class ResultArena final : public BufferSource {
 public:
  /// Starts handing out `region` from its start. Nothing may still use its bytes: the driver
  /// released the last result in it and in_use() was false after the last call.
  void begin(std::shared_ptr<SharedMapping> region);
  /// Stops handing out; buffers already taken stay valid for as long as they are referenced.
  void end();

  /// A buffer in the region, or nullptr (the heap serves it) when the rest is too small.
  std::shared_ptr<Buffer> take(int64_t size) override;

  /// Bytes handed out since begin(), padding included: a copy into the region goes after them.
  size_t used() const { return used_; }
  /// True when `buffer` was handed out since the last begin().
  bool holds(const Buffer& buffer) const;
  /// Offset of `buffer` (held) inside the region.
  uint64_t offset_of(const Buffer& buffer) const;
  /// True while a buffer handed out during the last begin()..end() is still referenced: the
  /// region must then not be handed out again. The acquire pairs with the release of the
  /// thread that dropped the last one.
  bool in_use() const { return in_use_ && in_use_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<SharedMapping> region_;
  /// Owner shared by every buffer handed out in this call; its deleter clears in_use_.
  std::shared_ptr<SharedMapping> owner_;
  std::shared_ptr<std::atomic<bool>> in_use_;
  size_t used_ = 0;
  bool open_ = false;
};

}  // namespace ember::process
