// The first pipeline of a query as a message, so that another rank can run some of its
// partitions: the source (a CSV, JSON-lines, Parquet or Arrow scan, a range or a table in
// memory) and the filters,
// projections, explodes and actor-pool UDF calls above it, as logical nodes the receiving rank
// plans again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/sinks/shuffle_sink.h"
#include "plan/logical_node.h"

namespace ember::dist {

/// A join the ranks run as a hash exchange of both sides, once both exchanges have ended: each
/// rank's buckets of each side are kept there under the exchange's id.
struct ShuffledJoinRefs {
  const LogicalNode* join = nullptr;  ///< a JoinNode of the plan encoded
  uint64_t left = 0, right = 0;       ///< the exchanges' ids
  int ranks = 1;
  int per_rank = 1;  ///< buckets per rank
};

/// The chain from `root`'s leftmost source up to its first pipeline breaker, encoded; empty,
/// with `why` saying what keeps it on rank 0, when the plan's shape cannot be spread (a stateless
/// UDF; a join whose right side holds a breaker; one whose right side holds a UDF or more than
/// 64 MiB, unless it travels as `shuffled`'s joined buckets). A join on the way travels with its
/// whole right side, which every rank reads and builds itself. A Parquet scan travels as the
/// columns and row groups it reads after pruning and statistics; a table in memory whole. When the
/// breaker is a group-by, agg() or top-k whose expressions other ranks can evaluate, it travels
/// too, and `*partials` (when given) is set: the ranks then send their partitions' partial states
/// (aggregates, a top-k's best rows), not their rows. When a group-by or sort travelled and only
/// filters and projections lie above it, they travel too (the pipeline after the breaker: a write
/// spread by key range runs it on every rank), and `*tail` (when given) is set.
/// With `shuffled` (its join set), that join travels as the chain's source: every rank reads
/// its own joined buckets (BucketJoinSource) instead of the join's inputs.
std::string encode_first_pipeline(const LogicalNode& root, std::string* why,
                                  bool* partials = nullptr, bool* tail = nullptr,
                                  const ShuffledJoinRefs* shuffled = nullptr);

/// The join of `root`'s first pipeline that `ranks` ranks can run as a hash exchange of both
/// sides when every rank cannot read its right side whole (more than 64 MiB, or a UDF in it),
/// or reading it on every rank costs more (its bytes, past 1 MiB, over a 1/ranks share of the
/// left side's), and with it the whole first pipeline spreads: both its sides are chains
/// of filters, projections, explodes and UDF calls over a source that spreads (no breaker, no
/// download). Null when there is none (the plan spreads without one, or not at all).
const LogicalNode* pick_shuffled_join(const LogicalNode& root, int ranks);

/// Why `join` (pick_shuffled_join's) runs as a hash exchange of both sides on `ranks` ranks
/// rather than read whole by every rank, for explain().
std::string why_exchanged(const LogicalNode& join, int ranks);

/// One side of a join run as a hash exchange: its chain, ending in the exchange of its rows by
/// the hash of `keys` into `per_rank` buckets per rank. Empty, with `why`, when it cannot travel.
std::string encode_join_side(const LogicalNode& side, const std::vector<std::string>& keys,
                             int per_rank, std::string* why);

/// What a rank needs to decode a chain that reads joined buckets: its own buckets of each
/// exchange, by id, its rank and the budget a bucket's join keeps to.
struct ChainContext {
  std::function<std::shared_ptr<const JoinBuckets>(uint64_t)> buckets;
  int rank = 0;
  int64_t memory_budget = 0;
};

/// A join side's exchange, as encode_join_side wrote it: the breaker the rank plans after the
/// chain.
struct JoinSideExchange {
  std::vector<std::string> keys;
  int per_rank = 1;
};

/// The chain again, made through the node factories (types are checked again), under its
/// breaker when one travelled, and under the nodes after it when they travelled. Its actor-pool
/// nodes carry specs fit for the receiving rank's pools of proxies: name, class, return type, batch
/// size and retries.
/// `context`: for a chain that reads joined buckets; `side`: set when the chain is a join side
/// that ends in its exchange.
NodePtr decode_first_pipeline(std::string_view bytes, const ChainContext* context = nullptr,
                              std::optional<JoinSideExchange>* side = nullptr);

}  // namespace ember::dist
