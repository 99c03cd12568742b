// Runs a query: admission, actor pools, pipelines, statistics.
#pragma once

#include <string>

#include "ember/parquet_options.h"
#include "ember/query_stats.h"
#include "ember/run_options.h"
#include "exec/cluster_runtime.h"
#include "exec/physical_planner.h"
#include "plan/logical_node.h"

namespace ember {

/// Where a query's rows go.
struct QueryOutput {
  enum class Kind { Collect, Csv, Jsonl, Parquet, Arrow };
  Kind kind = Kind::Collect;
  std::string dir;                   ///< file kinds: the directory the query's files replace
  ParquetWriteOptions parquet = {};  ///< Parquet only
  ArrowWriteOptions arrow = {};      ///< Arrow only
  StorageOptions storage = {};       ///< an s3:// `dir`: its endpoint and credentials
};

/// Optimizes and runs `plan`. Admission happens before any actor is constructed: a query whose
/// pools do not fit throws ResourceError and starts nothing. Every pool is torn down when the
/// query ends, whether it succeeds, fails or stops early at a limit. A query that writes files
/// is all-or-nothing: they are staged beside `out.dir` and replace it only when the whole query
/// succeeded (docs/design/write_protocol.md); a directory the query reads, or one holding files
/// ember did not write, is refused with InvalidArgument before anything runs. Under the MPI
/// runner, `cluster` places the actors over the ranks and spreads the first pipeline; null on
/// one machine.
QueryResult execute_plan(const NodePtr& plan, const RunOptions& options, const QueryOutput& out,
                         ClusterRuntime* cluster);

/// Buckets each rank joins of a join run as a hash exchange of both sides: its pipeline threads
/// join several at once, and each bucket's join holds a fraction of the rank's share.
inline constexpr int kJoinBucketsPerRank = 4;

/// On a cluster (`cluster` set, more than one rank): the join of `optimized` that the cluster
/// runs as a hash exchange of both sides, for plan_physical; none on one machine or for a
/// resumable write.
ShuffleChoice shuffle_choice(const LogicalNode& optimized, const RunOptions& options,
                             ClusterRuntime* cluster);

/// Pipeline threads for a query: RunOptions::threads if set, else the CPUs the actor pools
/// leave free, and never fewer than one (so pools holding every CPU cannot starve the scan).
int pipeline_threads(const RunOptions& options, double cpus_left);

/// The bytes a query's spilling sinks may hold: RunOptions::memory_budget_bytes if set, else
/// EMBER_MEMORY_BUDGET, else a quarter of the memory (at least 64 MiB). InvalidArgument for a
/// negative option or a malformed variable.
int64_t memory_budget(const RunOptions& options);

}  // namespace ember
