// Decoded chunk data to an ember Column: physical values converted to the ember type
// (timestamps to microseconds, TIME to microseconds since midnight, decimals to float64, INT96
// to timestamps, unsigned 64-bit to int64 when the values fit), nulls placed by the definition
// levels and lists assembled from the repetition levels.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ember/column.h"
#include "io/parquet/parquet_chunk_reader.h"

namespace ember::parquet {

/// The column of `rows` rows; throws std::runtime_error when the levels and values disagree,
/// or when an unsigned 64-bit value does not fit in int64.
Column build_column(ChunkData data, const LeafColumn& leaf, int64_t rows);

/// The chunk's non-null values as a column of the leaf's value type (a list's item type).
Column leaf_values(const ChunkData& d, const LeafColumn& leaf);

/// `dense` spread over `valid.size()` slots, null where valid is 0 (`present` slots are 1).
Column spread_values(const Column& dense, const std::vector<uint8_t>& valid, int64_t present);

/// The values of the level entries i < n that `is_slot(i)` selects, each holding the next
/// dense value when `is_value(i)` and null otherwise. A column without nulls is `dense` itself:
/// the validity is built only when some slot is null.
template <class Slot, class Present>
Column place_values(const Column& dense, int64_t n, Slot is_slot, Present is_value) {
  int64_t slots = 0, present = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!is_slot(i)) continue;
    ++slots;
    present += is_value(i);
  }
  if (present == slots) {
    if (dense.size() != present) throw std::runtime_error("levels and values disagree");
    return dense;
  }
  std::vector<uint8_t> valid;
  valid.reserve(size_t(slots));
  for (int64_t i = 0; i < n; ++i)
    if (is_slot(i)) valid.push_back(is_value(i));
  return spread_values(dense, valid, present);
}

}  // namespace ember::parquet
