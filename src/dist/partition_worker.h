// A worker rank's share of a query's first pipeline: the partitions rank 0 assigned to it run
// here, through the local executor's pipeline runner, and their rows go back to rank 0.
#pragma once

#include "dist/mpi_transport.h"

namespace ember::dist {

/// The worker side of the partition protocol (messages on kTagQuery):
///   rank 0 -> rank: Init (query, done key, partitions and their keys, proxies per pool, the
///                   encoded pipeline)          Stop (query): end it early
///   rank -> rank 0 (kTagData, in order):  Result (partition key, rows, columns) per batch the
///                   sink receives; Stop (partition key) when a partition ends; Failed
///                   (partition key, error) for each partition that did not; at last Ready
///                   (done key, partitions run, rows read, per pool the batches, rows,
///                   retries, timeouts and busy seconds of calls to its own actors)
class PartitionWorker {
 public:
  /// The transport's handler for kTagQuery: starts a query's run on a thread of its own, or
  /// cancels one. Never waits for a run.
  static void handle(Incoming message);
  /// Waits for every run to end (at the rank's shutdown).
  static void shutdown();
};

}  // namespace ember::dist
