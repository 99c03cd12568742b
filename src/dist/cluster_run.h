// A query spread over the cluster, seen from rank 0: it sends the worker ranks their orders and
// partitions, hands out the rest as they ask, and takes what they send back (rows, partial
// states, progress, ends), until every rank has ended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dist/transport.h"
#include "exec/partition_spreading.h"
#include "exec/physical_plan.h"
#include "exec/query_context.h"

namespace ember::dist {

/// How many partitions each rank is handed at the start, out of `n`, before any rank asks.
int first_partitions_per_rank(int n, int ranks);

/// Starts spreading pipeline `at` of `plan` (encoded as `pipeline`) over every rank of
/// `transport` (rank 0's): the orders go out at once. `partials`: its breaker travelled with it
/// (the other ranks send their partitions' partial states). `output`: see SpreadOutput. Rank 0, the
/// driver thread.
/// EMBER_DIST_NO_LENDING=1: no rank's idle actors are lent to the others (the path before,
/// for benchmarks: bench/dist/run.sh).
bool lending_disabled();

/// The path before the exchange, for benchmarks (bench/dist/run.sh): every partition's
/// partial state to rank 0, which merges them all (EMBER_DIST_NO_EXCHANGE=1).
bool states_to_rank_0();

/// EMBER_DIST_NO_RANGES=1: a write after an exchanged group-by is written by rank 0 from the
/// ranks' finalized shares, not by every rank by key range (the path before, for benchmarks).
bool ranges_disabled();

std::unique_ptr<SpreadRun> start_cluster_run(Transport& transport, uint64_t id,
                                             const PhysicalPlan& plan, size_t at,
                                             const std::string& pipeline, bool partials,
                                             QueryContext& query, const SpreadOutput& output);

}  // namespace ember::dist
