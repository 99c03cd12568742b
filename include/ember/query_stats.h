/// \file
/// What a query reports about itself: per-UDF figures and totals, beside the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/batch.h"

namespace ember {

/// Per-UDF figures for one query.
struct UdfStats {
  std::string name;  ///< the UDF's name
  /// Actors the pool started with: concurrency(), or an autoscaling pool's minimum.
  int actors = 0;
  /// Constructions of the UDF (every actor started, replacements included), the calls it
  /// served and the rows in them.
  ///@{
  int64_t inits = 0, batches = 0, rows = 0;
  ///@}
  /// Seconds in constructors and in calls, summed over the actors.
  ///@{
  double init_seconds = 0, busy_seconds = 0;
  ///@}
  /// Calls run again after a failure (a throw or a dead worker process), each within
  /// max_retries of its batch.
  int64_t retries = 0;
  /// Rows whose own call still failed once their retries were spent, under OnError::Null or
  /// OnError::Skip (each is a row of QueryResult::rejected).
  int64_t failed_rows = 0;
  /// Calls that ran past Udf::timeout (each retired its actor or killed its worker).
  int64_t timeouts = 0;
  /// Most actors alive at once, and how often an autoscaling pool (Udf::concurrency(min,
  /// max)) grew or shrank by one actor.
  ///@{
  int peak_actors = 0;
  int64_t scale_ups = 0, scale_downs = 0;
  ///@}
  /// What the pool held for the query (totals over its actors).
  ///@{
  double held_cpus = 0, held_gpus = 0;
  int64_t held_memory_bytes = 0;
  ///@}
  /// Under the MPI runner: the pool's actors on each rank (index = rank). One entry locally.
  std::vector<int> actors_per_rank;
  /// Constructions on each rank (index = rank): equal to actors_per_rank unless a worker
  /// process died and was replaced.
  std::vector<int64_t> inits_per_rank;
};

/// What one rank did for a query (QueryStats::ranks).
struct RankStats {
  int rank = 0;  ///< the rank's number (rank 0 runs the program)
  /// Source partitions this rank's pipelines ran.
  int64_t partitions = 0;
  /// Rows this rank handled: rows its pipelines read, plus (on a rank that only hosts actors)
  /// rows its actors processed.
  int64_t rows = 0;
  /// Time spent in UDF calls on this rank's actors, summed over them.
  double busy_seconds = 0;
  /// The most result batches this rank had sent to rank 0 at once that rank 0 had not yet
  /// taken: bounded, so a fast rank cannot flood rank 0's memory (0 on rank 0 and without a
  /// cluster).
  int64_t peak_results_in_flight = 0;
  /// File bytes this rank's scans read (Parquet column chunks, Arrow record batches, CSV and
  /// JSON-lines byte ranges); none for a source in memory.
  int64_t bytes_read = 0;
  /// Bytes of the output files this rank's writers wrote (write_*); none for a collect.
  int64_t bytes_written = 0;
  /// Rows this rank sent to other ranks in exchanges: the groups of a spread group-by or
  /// distinct, whose partial states go by key to the rank that merges them
  /// (docs/cluster.md). Joins and sorts do not exchange rows yet.
  int64_t rows_shuffled_out = 0;
  /// Rows this rank received from other ranks in exchanges, as above.
  int64_t rows_shuffled_in = 0;
  /// UDF batches of this rank's partitions that ran on another rank's actors: once the
  /// partitions have run out, a rank whose actors are idle takes batches from a rank whose
  /// actors are all busy (docs/cluster.md).
  int64_t udf_batches_elsewhere = 0;
};

/// What a query reports about itself (QueryResult::stats).
struct QueryStats {
  std::vector<UdfStats> udfs;  ///< one per actor pool (stateful UDF)
  double wall_seconds = 0;     ///< from the start of the query to its end
  int64_t rows_out = 0;        ///< rows collected, or written by a write_* call
  /// One entry per rank of the cluster (one, rank 0, without the MPI runner).
  std::vector<RankStats> ranks;
  /// A resumable write (RunOptions::resumable) that took over an earlier run's journal: the
  /// partitions that run had finished (not run again), and the output rows of every piece it
  /// had finished, those partitions' and the checkpoints of unfinished ones (not recomputed).
  ///@{
  int64_t resumed_partitions = 0, resumed_rows = 0;
  ///@}
};

/// What execute() returns: the collected table and the query's figures.
struct QueryResult {
  Table table;       ///< the rows; empty for a write_* call
  QueryStats stats;  ///< the query's figures
  /// The rows a UDF under OnError::Null or OnError::Skip failed on, in input order (per UDF),
  /// then those whose file a url_download under OnError::Null could not fetch: columns `udf`
  /// and `error` (utf8), then the argument columns of those UDFs' calls (a download's: `url`;
  /// null where a row's UDF has no such argument). Empty, with only `udf` and `error`, when
  /// none.
  Table rejected;
};

}  // namespace ember
