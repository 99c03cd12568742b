// The first pipeline of a query as a message, so that another rank can run some of its
// partitions: the source (a CSV, JSON-lines, Parquet or Arrow scan, a range or a table in
// memory) and the filters,
// projections, explodes and actor-pool UDF calls above it, as logical nodes the receiving rank
// plans again.
#pragma once

#include <string>
#include <string_view>

#include "plan/logical_node.h"

namespace ember::dist {

/// The chain from `root`'s leftmost source up to its first pipeline breaker, encoded; empty,
/// with `why` saying what keeps it on rank 0, when the plan's shape cannot be spread (a stateless
/// UDF; a right or full join; a join whose right side holds a UDF or a breaker, or more than
/// 64 MiB). A join on the way travels with its whole right side, which every rank reads and
/// builds itself. A Parquet scan travels as the columns and row groups it reads after pruning
/// and statistics; a table in memory whole. When the breaker is a group-by, agg() or top-k whose
/// expressions other ranks can evaluate, it travels too, and `*partials` (when given) is set:
/// the ranks then send their partitions' partial states (aggregates, a top-k's best rows), not
/// their rows. When a group-by or sort travelled and only filters and projections lie above it,
/// they travel too (the pipeline after the breaker: a write spread by key range runs it on every
/// rank), and `*tail` (when given) is set.
std::string encode_first_pipeline(const LogicalNode& root, std::string* why,
                                  bool* partials = nullptr, bool* tail = nullptr);

/// The chain again, made through the node factories (types are checked again), under its
/// breaker when one travelled, and under the nodes after it when they travelled. Its actor-pool
/// nodes carry specs fit for the receiving rank's pools of proxies: name, class, return type, batch
/// size and retries.
NodePtr decode_first_pipeline(std::string_view bytes);

}  // namespace ember::dist
