// Some fields of a struct column: reading only the leaves a query needs (`s.a` of a struct s
// whose other fields are images reads none of the image bytes), and finding the primitive leaf
// behind a path of struct fields for statistics.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "io/parquet/parquet_schema.h"

namespace ember::parquet {

/// `col` (a struct column) keeping only its top-level fields named in `keep`, in the column's
/// order: its type, node tree and leaves narrowed to them. Throws std::invalid_argument naming
/// a field the struct does not have, or when `col` is not a struct.
LeafColumn keep_struct_fields(const LeafColumn& col, const std::set<std::string>& keep);

/// The primitive leaf of column `col` reached through the struct fields `path` (each a field
/// of the struct before it), or null when the path passes through a list or a map, names no
/// field, or ends at a group.
const LeafColumn* struct_leaf(const LeafColumn& col, const std::vector<std::string>& path);

}  // namespace ember::parquet
