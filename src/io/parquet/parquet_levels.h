// Definition and repetition levels of one leaf of a nested column (the Dremel encoding), for
// the Parquet writer: the layouts of parquet_write_schema.h, walked row by row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/column.h"

namespace ember::parquet {

/// The levels of one leaf over every row of a column, and where its values are.
struct LeafLevels {
  std::vector<uint32_t> defs;  ///< one per leaf slot: a value, a null, or an empty/null parent
  std::vector<uint32_t> reps;  ///< as many as defs; empty when no list or map is on the path
  /// The rows of `values` that hold the leaf's non-null values, in order (one per def equal
  /// to the leaf's maximum definition level).
  std::vector<int64_t> value_rows;
  Column values;  ///< the leaf's column: the innermost child on the path, unsliced
};

/// The levels of the leaf that `steps` leads to (WriteLeaf::steps: a struct's field index, 0
/// for a list's element, 0 or 1 for a map's key or value) in column `c`, named `name` in
/// errors. Each optional node adds a definition level, each list or map a repetition and a
/// definition level; a map's key is required. InvalidArgument for a null map key or entry.
LeafLevels leaf_levels(const Column& c, const std::vector<int>& steps, const std::string& name);

}  // namespace ember::parquet
