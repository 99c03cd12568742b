// A bounded, process-wide cache of freed heap blocks, by power-of-two size class, so that the
// column buffers a streaming pipeline frees every morsel are reused hot instead of being
// returned to the kernel and page-faulted in again.
#pragma once

#include <cstddef>

namespace ember {

/// Recycles large 64-byte aligned heap blocks. Blocks from kMinBlock to kMaxBlock bytes are
/// rounded up to a power of two. Each thread first reuses the last few blocks it freed itself
/// (up to 1 MiB, lock-free, still in its cache); other blocks go to shared lists (one mutex per
/// size class), where a block freed on any thread may be handed out on any other, and a
/// thread's own blocks join them when it exits. All methods are thread-safe.
class BufferCache {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kMinBlock = size_t(64) << 10;         ///< smaller blocks go to malloc
  static constexpr size_t kMaxBlock = size_t(64) << 20;         ///< larger blocks go to malloc
  static constexpr size_t kMaxCachedBytes = size_t(256) << 20;  ///< bound on idle memory

  /// The process-wide cache. Never destroyed, so buffers freed during static destruction are safe.
  static BufferCache& instance();

  /// Bytes really reserved for a request of `bytes` (a multiple of kAlignment, at least one).
  static size_t capacity_for(size_t bytes);

  /// A block of capacity_for(bytes) bytes, 64-byte aligned, contents unspecified. Throws
  /// std::bad_alloc when memory is exhausted.
  void* acquire(size_t bytes);
  /// Returns a block obtained from acquire(bytes) with the same `bytes`.
  void release(void* block, size_t bytes);

  /// Bytes currently held idle in the shared lists (for tests and diagnostics).
  size_t cached_bytes() const;

 private:
  friend struct LocalBlocks;
  BufferCache() = default;
  /// Puts a block of exactly `capacity` bytes on the shared lists, or frees it past the bound.
  void release_shared(void* block, size_t capacity);
  struct SizeClass;
  SizeClass* classes_ = nullptr;
};

}  // namespace ember
