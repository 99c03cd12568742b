// Conditionals and nulls over whole columns: when (CASE WHEN), coalesce, is_in.
#pragma once

#include <vector>

#include "ember/column.h"

namespace ember {

/// Row i is then[i] where cond[i] is true, otherwise[i] where it is false or null. Both branches
/// already have the result's type; cond is bool or Null-typed.
Column choose(const Column& cond, const Column& then, const Column& otherwise);

/// Row i is the first non-null of values[k][i]; the columns already share one type.
Column first_non_null(const std::vector<Column>& values, int64_t n);

/// Whether each value is one of `values` (null stays null; numbers compare by value, so 1
/// matches 1.0; null entries match nothing).
Column membership(const Column& c, const std::vector<Value>& values);

}  // namespace ember
