// Writing into a Buffer while it is being built: internal, since a buffer is immutable once a
// Column shares it.
#pragma once

#include <cstdint>
#include <memory>

#include "ember/column.h"

namespace ember::detail {

/// What the engine may do to a Buffer that the public API does not offer.
struct BufferAccess {
  /// Writable bytes; only legal while the buffer is being built (before any Column shares it).
  static uint8_t* mutable_data(Buffer& b) { return b.data_; }
  /// A heap buffer of `size` bytes whose contents are unspecified (only the padding past
  /// `size` is zeroed), for writers that overwrite every byte; cheaper than Buffer::allocate.
  static std::shared_ptr<Buffer> allocate_uninitialized(int64_t size);
  /// The bytes a `size`-byte buffer's 64-byte aligned extent spans (its padding included; never
  /// zero): what word-wise kernels may read, and what a borrowed buffer must make readable.
  static size_t padded_size(size_t size);
  /// Borrows `data`; `owner` is kept alive as long as the buffer (e.g. a shared-memory
  /// mapping that unmaps when released).
  static std::shared_ptr<Buffer> wrap(const void* data, int64_t size, std::shared_ptr<void> owner);
};

}  // namespace ember::detail
