// A worker rank's share of a query's first pipeline: the partitions rank 0 assigned to it run
// here, through the local executor's pipeline runner, and their rows go back to rank 0.
#pragma once

#include "dist/mpi_transport.h"

namespace ember::dist {

/// The worker side of the partition protocol (messages on kTagQuery):
///   rank 0 -> rank: Init (query, done key, partitions and their keys, proxies per pool, the
///                   encoded pipeline)          Stop (query): end it early
///                   Taken (query, n): rank 0 has taken n more of the query's result batches
///   rank -> rank 0 (kTagData, in order):  Result (partition key, rows, columns) per batch the
///                   sink receives, at most kResultWindow (8) of them not yet Taken; Stop
///                   (partition key) when a partition ends; Failed (partition key, error) for
///                   each partition that did not; every 100 ms while the counters change,
///                   Progress (done key, partitions done, rows read, rows out); at last Ready
///                   (done key, partitions run, rows read, rows out, the most results out at
///                   once, per pool the batches, rows, retries, timeouts and busy seconds of
///                   calls to its own actors, and each own actor's key and constructions)
class PartitionWorker {
 public:
  /// The transport's handler for kTagQuery: starts a query's run on a thread of its own, or
  /// cancels one. Never waits for a run.
  static void handle(Incoming message);
  /// Waits for every run to end (at the rank's shutdown).
  static void shutdown();
};

}  // namespace ember::dist
