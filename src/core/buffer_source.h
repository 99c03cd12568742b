// Lets one thread take its large column buffers from somewhere other than the heap, for a
// while: a worker process has its UDF build results straight in shared memory, so that they
// reach the driver without a copy.
#pragma once

#include <cstdint>
#include <memory>

#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember {

/// A supplier of large buffers. Asked only on the thread that installed it (ScopedBufferSource),
/// so implementations need no locking.
class BufferSource {
 public:
  virtual ~BufferSource() = default;
  /// A buffer of `size` bytes whose 64-byte aligned extent (the padding after `size` included)
  /// is reserved for it, contents unspecified; or nullptr, and the heap serves the request.
  virtual std::shared_ptr<Buffer> take(int64_t size) = 0;
};

/// While alive, Buffer::allocate and Buffer::allocate_uninitialized on the constructing thread
/// ask `source` first for buffers of at least `min_bytes`. Scopes nest; the innermost wins.
class ScopedBufferSource {
 public:
  ScopedBufferSource(BufferSource* source, int64_t min_bytes);
  ~ScopedBufferSource();
  ScopedBufferSource(const ScopedBufferSource&) = delete;
  ScopedBufferSource& operator=(const ScopedBufferSource&) = delete;

 private:
  BufferSource* previous_source_;
  int64_t previous_min_bytes_;
};

}  // namespace ember
