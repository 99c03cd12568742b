// Functions of each row's list: membership, sums and means, extremes, slices, joins, sorting and
// distinct items. They read the items where they lie in the item column.
#pragma once

#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// The list function of `e` over the list or fixed_size_list column `lists`, as typed by
/// function_result_type (`type`).
Column list_function(const ExprNode& e, const Column& lists, const DataType& type);

}  // namespace ember
