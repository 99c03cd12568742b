// Whether a row group may hold rows that satisfy a predicate, from its min/max statistics:
// conjunctions of comparisons between a column and a literal are checked; anything else may
// match.
#pragma once

#include "expr/expr_node.h"
#include "io/parquet/parquet_scan.h"

namespace ember {

bool row_group_may_match(const ExprNode& predicate, const ParquetFile& file, int row_group);

}  // namespace ember
