// Decoded chunk data to an ember Column: physical values converted to the ember type
// (timestamps to microseconds, decimals to float64, INT96 to timestamps), nulls placed by the
// definition levels and lists assembled from the repetition levels.
#pragma once

#include "ember/column.h"
#include "io/parquet/parquet_chunk_reader.h"

namespace ember::parquet {

/// The column of `rows` rows; throws std::runtime_error when the levels and values disagree.
Column build_column(ChunkData data, const LeafColumn& leaf, int64_t rows);

}  // namespace ember::parquet
