// The order of rows under sort keys: compare two rows, or sort a batch's rows, stably.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/column.h"

namespace ember {

/// How one key orders its values. Floats: NaN above every number, -0.0 equal to 0.0.
struct KeyOrder {
  bool descending = false;
  bool nulls_first = false;
};

/// Compares row `i` of `a` with row `j` of `b` (same key types): < 0, 0 or > 0.
int compare_rows(const std::vector<Column>& a, int64_t i, const std::vector<Column>& b, int64_t j,
                 const std::vector<KeyOrder>& order);

/// Words whose unsigned order is the order of the key `c` (rows [0, rows)) under `descending`:
/// fills `out` and returns true for a fixed-width key without nulls (bool, int32, int64,
/// timestamp, float32, float64; NaN above every number, -0.0 equal to 0.0); false otherwise.
bool order_words(const Column& c, bool descending, int64_t rows, std::vector<uint64_t>& out);

/// The row numbers of `keys` (equal lengths, `rows` rows) in key order; ties keep input order.
/// Only the first `limit` of them when `limit` >= 0 (a partial sort: O(rows log limit)).
std::vector<int64_t> sorted_rows(const std::vector<Column>& keys, int64_t rows,
                                 const std::vector<KeyOrder>& order, int64_t limit = -1);

}  // namespace ember
