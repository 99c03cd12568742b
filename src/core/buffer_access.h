// Writing into a Buffer while it is being built: internal, since a buffer is immutable once a
// Column shares it.
#pragma once

#include <cstdint>

#include "ember/column.h"

namespace ember::detail {

/// What the engine may do to a Buffer that the public API does not offer.
struct BufferAccess {
  /// Writable bytes; only legal while the buffer is being built (before any Column shares it).
  static uint8_t* mutable_data(Buffer& b) { return b.data_; }
};

}  // namespace ember::detail
