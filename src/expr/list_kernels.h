// Kernels over list and fixed_size_list columns: sizes and item extraction.
#pragma once

#include <cstdint>

#include "ember/column.h"

namespace ember {

/// Items per row (int64), null where the list is null.
Column list_sizes(const Column& lists);

/// Item `i` of every row (negative: from the end), of the element type; null where the list
/// is null or has no such item.
Column list_items_at(const Column& lists, int64_t i);

}  // namespace ember
