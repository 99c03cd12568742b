// Struct and map functions whose kernels are more than a zero-copy field: map_get.
#pragma once

#include "ember/column.h"

namespace ember {

/// Per row of a map column, the value of the first entry whose key equals `key` (converted to
/// the key type first, so numbers compare by value); null where the map is null or lacks it.
Column map_get(const Column& map, const Value& key, const DataType& value_type);

}  // namespace ember
