// Parts of timestamps (year .. second, day of the week) and truncation to a unit, in UTC on the
// proleptic Gregorian calendar.
#pragma once

#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// InvalidArgument when dt_truncate's unit is not year, month, week, day, hour, minute or
/// second; `root` is quoted.
void check_truncate_unit(const ExprNode& e, const ExprNode& root);

/// The dt_ function of `e` over the timestamp column `ts`.
Column date_function(const ExprNode& e, const Column& ts);

}  // namespace ember
