// Conditionals and nulls over whole columns: when (CASE WHEN), coalesce, is_in.
#pragma once

#include <vector>

#include "ember/column.h"

namespace ember {

/// CASE WHEN conds[0] THEN values[0] WHEN conds[1] ... ELSE values.back(): row i takes
/// values[k] for the first k whose conds[k] is true (false or null passes on). The values
/// already share the result's type; each column (conditions too) has `n` rows, or one row that
/// applies to every row (a literal). A Null-typed condition is never true.
Column choose(const std::vector<Column>& conds, const std::vector<Column>& values, int64_t n);

/// Row i is the first non-null of values[k][i]; the columns already share one type.
Column first_non_null(const std::vector<Column>& values, int64_t n);

/// Whether each value is one of `values` (null stays null; numbers compare by value, so 1
/// matches 1.0; null entries match nothing).
Column membership(const Column& c, const std::vector<Value>& values);

}  // namespace ember
