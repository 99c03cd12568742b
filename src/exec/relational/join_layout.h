// Where a join's output columns come from: the probe (left) row, or the build (right) row.
#pragma once

#include <vector>

#include "ember/join_type.h"
#include "ember/types.h"

namespace ember {

struct JoinLayout {
  JoinType type = JoinType::Inner;
  Schema output;
  std::vector<int> left_keys;      ///< key positions in the left (probe) rows
  std::vector<int> right_keys;     ///< key positions in the right (build) rows
  int left_columns = 0;            ///< the output starts with every left column
  std::vector<int> right_columns;  ///< then these build columns (none for semi / anti)
};

}  // namespace ember
