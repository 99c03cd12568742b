// One column chunk of a row group: a leaf written as an optional dictionary page (strings of
// few distinct values) and v1 data pages (RLE levels, PLAIN or dictionary-coded values), with
// min/max statistics and a null count.
#pragma once

#include <cstdint>
#include <string>

#include "ember/column.h"
#include "io/parquet/parquet_levels.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_write_schema.h"

namespace ember::parquet {

/// A leaf of one row group, ready to write.
struct ChunkInput {
  const WriteLeaf& leaf;
  /// A top-level primitive column (its levels are its nulls), or a nested leaf's column
  /// (LeafLevels::values).
  const Column& values;
  const LeafLevels* levels = nullptr;  ///< a nested leaf's levels; null for a primitive column
};

/// Appends the column chunk of `in`, compressed with `codec`, to `*out`, whose first byte lies
/// at file offset `base`; returns the chunk's metadata. Pages hold at most 64K rows.
ColumnMeta write_column_chunk(const ChunkInput& in, int32_t codec, std::string* out, int64_t base);

}  // namespace ember::parquet
