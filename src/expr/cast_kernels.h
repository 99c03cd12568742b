// Vectorised casts between bool, int64, float64 and utf8.
#pragma once

#include "ember/column.h"

namespace ember {

/// Converts `c` to `to`. Same type returns `c` itself. utf8 parses (surrounding whitespace
/// ignored; "true"/"false"/"1"/"0" for bool, case-insensitive) and gives null on failure;
/// float64 -> int64 truncates toward zero and gives null for NaN or out-of-range values;
/// numbers -> utf8 use the shortest round-trip text; a Null column casts to nulls of `to`.
Column cast_column(const Column& c, const DataType& to);

}  // namespace ember
