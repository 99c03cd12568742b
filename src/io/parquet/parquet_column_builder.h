// Decoded chunk data to an ember Column: physical values converted to the ember type
// (timestamps to microseconds, TIME to microseconds since midnight, decimals to float64, INT96
// to timestamps, unsigned 64-bit to int64 when the values fit), nulls placed by the definition
// levels and lists assembled from the repetition levels.
#pragma once

#include "ember/column.h"
#include "io/parquet/parquet_chunk_reader.h"

namespace ember::parquet {

/// The column of `rows` rows; throws std::runtime_error when the levels and values disagree,
/// or when an unsigned 64-bit value does not fit in int64.
Column build_column(ChunkData data, const LeafColumn& leaf, int64_t rows);

}  // namespace ember::parquet
