// One column chunk: its pages decompressed and decoded into levels and the non-null values, in
// their physical representation (parquet_column_builder.h turns them into a Column).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/parquet/parquet_encodings.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_schema.h"

namespace ember::parquet {

/// Decoded contents of a column chunk.
struct ChunkData {
  std::vector<int16_t> defs, reps;  ///< empty when the level's maximum is 0, or all_defined
  /// Every definition level is the leaf's maximum (no nulls), and `defs` was left empty.
  bool all_defined = false;
  int64_t num_values = 0;  ///< level entries (rows for a flat column)
  /// Non-null values: fixed-width bytes (`width` each; booleans one byte 0/1), or byte arrays.
  ByteStore fixed;
  int width = 0;
  ByteArrays arrays;
  bool is_arrays = false;
};

/// Decodes the chunk whose bytes (from the chunk's first page) are `bytes`. `flat`: the leaf
/// is a top-level column read through build_column, whose definition levels may then be left
/// out when none is a null (ChunkData::all_defined). Throws std::runtime_error on corrupt data
/// or an unsupported encoding or codec.
ChunkData read_chunk(std::string_view bytes, const ColumnMeta& meta, const LeafColumn& leaf,
                     bool flat = false);

}  // namespace ember::parquet
