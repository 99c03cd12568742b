// From a Parquet schema tree to ember fields: flat columns and one-level lists (the 3-level
// LIST layout and the legacy 2-level one) with the definition/repetition levels of each, and
// nested columns (parquet_nested.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/types.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_nested.h"

namespace ember::parquet {

/// One ember column and the Parquet leaf that stores it.
struct LeafColumn {
  Field field;            ///< name and ember type (list(T) for a list)
  int leaf_index = 0;     ///< position among the row group's column chunks
  SchemaElement element;  ///< the primitive leaf
  int max_def = 0, max_rep = 0;
  bool is_list = false;
  int list_def = 0;  ///< lists: the definition level of an empty (non-null) list
  /// A struct, a map, or a list of lists or of structs: the node tree and its primitive
  /// leaves (leaf_index and element above are those of the first leaf).
  std::shared_ptr<const NestedNode> nested;
  std::vector<LeafColumn> leaves;
};

/// The columns of a file, named as the file names them except that a name the file gives to
/// more than one top-level field is renamed in its repeats (`x`, `x_1`, ...; see
/// rename_duplicate_columns), so a name always selects one column. A field ember cannot read (a
/// group without fields, a malformed list or map) gives `unsupported` its name and why; it is
/// an error only when the query reads it.
struct FileSchema {
  std::vector<LeafColumn> columns;
  std::vector<std::pair<std::string, std::string>> unsupported;
  int num_leaves = 0;
};

/// Throws std::runtime_error for a malformed schema tree.
FileSchema map_schema(const FileMetaData& meta);

/// The ember type a primitive leaf reads as (logical and converted types applied).
DataType leaf_type(const SchemaElement& e);

/// Whether a primitive leaf holds unsigned integers (UINT_8 ... UINT_64, INTEGER(n, false)):
/// their stored bits are read as unsigned, and their legacy min/max statistics (ordered as
/// signed numbers by old writers) are not trusted.
bool is_unsigned(const SchemaElement& e);

/// For a TIME leaf (TIME_MILLIS, TIME_MICROS, the TIME logical type) the unit it stores:
/// 1 millis, 2 micros, 3 nanos; 0 for every other leaf. ember reads TIME as int64
/// microseconds since midnight.
int time_unit(const SchemaElement& e);

}  // namespace ember::parquet
