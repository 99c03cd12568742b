// One column chunk of a row group: a leaf written as an optional dictionary page (strings of
// few distinct values) and v1 data pages (RLE levels, PLAIN or dictionary-coded values), with
// min/max statistics and a null count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/column.h"
#include "io/parquet/parquet_levels.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_write_schema.h"

namespace ember::parquet {

/// Some rows of a leaf, in the order they were written: a top-level primitive column (its
/// levels are its nulls), or a nested leaf's column (LeafLevels::values) with its levels.
struct ChunkPart {
  const Column* values = nullptr;
  const LeafLevels* levels = nullptr;  ///< a nested leaf's levels; null for a primitive column
};

/// A leaf of one row group, ready to write: its rows as the batches brought them, in parts
/// (a row group is not copied into one column first).
struct ChunkInput {
  const WriteLeaf& leaf;
  std::vector<ChunkPart> parts;
};

/// Appends the column chunk of `in`, compressed with `codec`, to `*out`, whose first byte lies
/// at file offset `base`; returns the chunk's metadata. Pages hold at most 64K rows and end
/// at the first row past 1 MiB of values; none spans two parts. With `flush`, whenever `*out`
/// holds 4 MiB or more after a page it is handed to `flush` (the file's next bytes) and
/// emptied, so that a chunk is never held whole.
ColumnMeta write_column_chunk(const ChunkInput& in, int32_t codec, std::string* out, int64_t base,
                              const std::function<void(std::string_view)>& flush = {});

}  // namespace ember::parquet
