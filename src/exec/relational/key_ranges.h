// Cutting rows in key order into key ranges, one per rank, and merging the pieces of one range
// that several ranks sent: a write spread by key range after an exchanged group-by
// (docs/cluster.md) keeps the key order across the ranks' part files this way.
#pragma once

#include <memory>
#include <vector>

#include "ember/batch.h"
#include "exec/relational/row_order.h"
#include "plan/source.h"

namespace ember {

/// The rows of `sorted`'s first `keys` columns (rows in key order under `order`, one per
/// key or with ties) that end `parts` ranges of near-equal rows: up to parts - 1 of them,
/// ascending, each the last key of its range (fewer when `sorted` has fewer rows).
Batch range_splitters(const Batch& sorted, int keys, const std::vector<KeyOrder>& order, int parts);

/// `sorted` (in key order) cut at `splitters` (range_splitters' rows of the same keys):
/// `parts` slices, slice j the rows whose key is above splitter j - 1 and at most splitter j;
/// the slice after the last splitter holds the rows above it, and any slices after that are
/// empty (no splitters: every row in slice 0). Equal keys fall into one slice.
std::vector<Batch> split_at_splitters(const Batch& sorted, int keys,
                                      const std::vector<KeyOrder>& order, const Batch& splitters,
                                      int parts);

/// One source of `pieces` (each in key order under `order`, its first `keys` columns the
/// keys, no key in two of them) merged into key order, as partition 0.
std::shared_ptr<const Source> merge_key_ordered(const Schema& schema, int keys,
                                                const std::vector<KeyOrder>& order,
                                                std::vector<Batch> pieces, std::string label);

/// Every batch of `source`, all its partitions in order, as one batch (of no rows when empty).
Batch read_whole(const Source& source);

}  // namespace ember
