// Large message memory, kept for reuse: a rank that ships batch after batch of similar size
// then writes and receives them into memory that is already mapped and faulted in, instead of
// paying for fresh pages (about as long as the copy itself) on every message.
#pragma once

#include <cstddef>
#include <memory>

#include "udf/process/shared_region.h"

namespace ember::dist {

/// Private anonymous memory of at least `bytes`, from the pool when a free block fits (at most
/// twice the size a fresh one would have), else freshly mapped. When the last reference goes, the
/// block returns to the pool (a few blocks are kept; the rest are unmapped). Thread-safe. Throws
/// Error when the system refuses the mapping.
std::shared_ptr<process::SharedMapping> take_region(size_t bytes);

}  // namespace ember::dist
