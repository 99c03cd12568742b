// The Parquet schema ember writes for a column, and its leaves: a primitive column is one
// optional leaf; a struct an optional group of its fields; a list (and a fixed-size list) the
// standard 3-level LIST layout; a map the standard MAP layout with a required key.
#pragma once

#include <string>
#include <vector>

#include "ember/types.h"
#include "io/parquet/parquet_metadata.h"

namespace ember::parquet {

/// One primitive column of a written field: it gets one column chunk per row group.
struct WriteLeaf {
  std::vector<std::string> path;  ///< the names from the top-level field down to the leaf
  /// At each nested node on the way down, which child leads to the leaf: a struct's field
  /// index, 0 for a list's element, 0 (key) or 1 (value) for a map.
  std::vector<int> steps;
  SchemaElement element;  ///< the primitive schema element
  int max_def = 0;        ///< one per optional or repeated node on the path
  int max_rep = 0;        ///< one per repeated node (list or map) on the path
};

/// The primitive schema element of an ember type (InvalidArgument naming `column` and its
/// type `column_type` for a type no primitive holds).
SchemaElement leaf_element(const DataType& t, const std::string& name, int32_t repetition,
                           const std::string& column, const DataType& column_type);

/// Appends the schema elements of a top-level field to `out`, depth first. InvalidArgument
/// naming the field for a type Parquet cannot hold (the Null type anywhere inside it, a
/// struct without fields).
void append_schema_elements(const Field& field, std::vector<SchemaElement>* out);

/// The leaves of a top-level field, in schema order: one for a primitive field, one per
/// primitive inside a nested one.
std::vector<WriteLeaf> write_leaves(const Field& field);

}  // namespace ember::parquet
