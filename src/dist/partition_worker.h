// A worker rank's share of a query's spread pipeline: the partitions rank 0 hands it run here,
// through the local executor's pipeline runner (after it built the right sides of the joins they
// probe), and their rows, or their breaker's partial states, go back to rank 0.
#pragma once

#include <memory>

#include "dist/transport.h"

namespace ember::dist {

/// The worker side of the partition protocol:
///   rank 0 -> rank (kTagQuery): Init (query, done key, this rank, proxies per pool and own
///                   actors' keys, the encoded pipeline, where to write files), then at once
///                   Grant (query, partitions with a key each, whether none are left) with the
///                   partitions set aside for the rank; later a Grant answers each Want, at
///                   once or, when the rank holds as many as its pace allows, at the end of one
///                   of its partitions (cluster_spreader.h)
///                   Stop (query): end it early (Grants after it hand out nothing)
///                   Taken (query, n): rank 0 has taken n more of the query's result batches
///   rank -> rank 0 (kTagData, in order):  Want (done key, n): up to n more partitions, sent
///                   while the rank has fewer than one in hand beside those it runs (or none to
///                   start), one at a time, never after a Grant said none are left; Result
///                   (partition key, rows, columns) per batch the sink receives, at most
///                   kResultWindow (8) of them not yet Taken; when the pipeline's breaker
///                   travelled with it (an aggregate, a top-k), Partial (partition key, the
///                   partition's state) instead of its rows, those past the state's share of the
///                   memory budget still as Result; Stop (partition key; with files, the rows of
///                   its part file, committed before, and for an object store its upload,
///                   filled but not completed: rank 0 completes it at commit) when a partition
///                   ends; Failed (partition key, error) for each partition handed to it that did
///                   not (then, once the answer to a Want still on its way has come, for each
///                   partition that answer handed it); every 100 ms while the counters change,
///                   Progress (done key, partitions done, rows read, rows out); at last Ready (done
///                   key, partitions run, rows read, rows out, the most results out at once, per
///                   pool the batches, rows, retries, timeouts and busy seconds of calls to its own
///                   actors, and each own actor's key and constructions)
class PartitionWorker {
 public:
  /// `transport`: this rank's, which every run sends with (it outlives the worker).
  explicit PartitionWorker(Transport& transport);
  /// Waits for every run to end (shutdown()).
  ~PartitionWorker();
  PartitionWorker(const PartitionWorker&) = delete;
  PartitionWorker& operator=(const PartitionWorker&) = delete;

  /// The transport's handler for kTagQuery: starts a query's run on a thread of its own, hands
  /// a run its partitions (starting them here when its pipeline waits for one), or cancels one.
  /// Never waits for a run.
  void handle(Incoming message);
  /// Waits for every run to end (at the rank's shutdown).
  void shutdown();

  struct Runs;

 private:
  Transport& transport_;
  std::unique_ptr<Runs> runs_;
};

}  // namespace ember::dist
