// Cutting rows in key order into key ranges, one per rank, and merging the pieces of one range
// that several ranks sent: a write spread by key range after an exchanged group-by or a sort
// (docs/cluster.md) keeps the key order across the ranks' part files this way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "exec/pipeline_breaker.h"
#include "plan/source.h"

namespace ember {

/// The fields of `schema` that `keys` names, in key order: the splitters' schema.
Schema key_schema(const Schema& schema, const RangeKeys& keys);

/// Keys that end `parts` ranges of near-equal rows of `runs` (rows of `schema`, each in key
/// order under `keys`):
/// up to parts - 1 rows of the key columns, ascending, distinct, each the last key of its range
/// (fewer when the runs hold few rows). Long runs are sampled (a few hundred rows per range
/// from each, weighted by the rows each stands for).
Batch range_splitters(const std::vector<TaggedRun>& runs, const Schema& schema,
                      const RangeKeys& keys, int parts);

/// `sorted` (in key order) cut at `splitters` (range_splitters' rows of the same keys):
/// `parts` slices, slice j the rows whose key is above splitter j - 1 and at most splitter j;
/// the slice after the last splitter holds the rows above it, and any slices after that are
/// empty (no splitters: every row in slice 0). Equal keys fall into one slice.
std::vector<Batch> split_at_splitters(const Batch& sorted, const RangeKeys& keys,
                                      const Batch& splitters, int parts);

/// One source of `pieces` (rows of `schema`, each in key order) merged into key order, ties to
/// the piece of the lower tag, as partition 0.
std::shared_ptr<const Source> merge_key_ordered(const Schema& schema, const RangeKeys& keys,
                                                std::vector<TaggedRun> pieces, std::string label);

/// Every batch of `source`, all its partitions in order, as one batch (of no rows when empty).
Batch read_whole(const Source& source);

}  // namespace ember
