// distinct(): a group-by on the chosen columns that keeps the first row of each group.
#pragma once

#include <string>
#include <vector>

#include "plan/logical_node.h"

namespace ember {

/// A GroupBy keyed on `columns` (all when empty) with first() of every other column, projected
/// back to the input's column order. InvalidArgument naming an unknown or repeated column.
NodePtr make_distinct(NodePtr input, std::vector<std::string> columns);

}  // namespace ember
