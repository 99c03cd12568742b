// Rank 0's side of spreading a query's source partitions over the ranks (exec's
// PartitionSpreader): which partitions go where, and the rows that come back.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "dist/transport.h"
#include "exec/partition_spreading.h"

namespace ember::dist {

/// The first pipeline's partitions are handed out as the ranks ask for them, so that a fast
/// rank runs more of them than a slow one and no rank holds the query up by much. Each rank,
/// rank 0 included, starts with up to 2 set aside for it (the first 2 x ranks, round robin:
/// partition p on rank p % ranks, so that a query with few partitions still runs on every rank
/// and its first rows come from rank 0). Rank 0 keeps the rest in a queue, lowest first: its
/// own pipeline takes from it in memory as it has room, and a worker rank asks for more over
/// the network before it runs out, keeping one in hand beside the ones it runs
/// (partition_worker.h). A rank that has ended partitions at a fraction of the leading rank's
/// pace may hold only that fraction of the most it has held (at least one): its request waits
/// until one of its partitions ends, so that what each rank holds when the queue runs dry
/// takes it about as long. Each worker rank runs its partitions with its own pipeline threads;
/// its UDF batches go to the pool's actors on that rank when it hosts some (least-loaded among
/// them, no network), else to the query's pool on rank 0, which hands them to the
/// least-loaded actor of the cluster; when every other rank has actors of its own, rank 0's
/// pool keeps rank 0's partitions on rank 0's actors likewise. Rows come back under a window
/// per rank (partition_worker.h). A query that writes CSV or JSON lines from its first
/// pipeline has each rank write its own partitions' parts. Plans whose first pipeline cannot
/// travel (pipeline_message.h) run on rank 0 alone, as explain() says.
class ClusterSpreader final : public PartitionSpreader {
 public:
  /// Spreads over every rank of `transport` (rank 0's).
  explicit ClusterSpreader(Transport& transport)
      : transport_(transport), ranks_(transport.ranks()) {}
  std::unique_ptr<SpreadRun> spread(const LogicalNode& optimized, const PhysicalPlan& plan,
                                    QueryContext& query, const SpreadOutput& output) override;
  std::string explain(const LogicalNode& optimized, const PhysicalPlan& plan) override;
  Spread spread_ranks(const LogicalNode& optimized, const PhysicalPlan& plan) override;
  const LogicalNode* shuffled_join(const LogicalNode& optimized) override;
  std::unique_ptr<SpreadRun> spread_join_side(const LogicalNode& join, bool left,
                                              const PhysicalPlan& plan, size_t at,
                                              QueryContext& query, const SpreadOutput& output,
                                              uint64_t* id) override;
  void forget_exchanges(const std::vector<uint64_t>& ids) override;

 private:
  Transport& transport_;
  int ranks_;
  std::atomic<uint64_t> next_query_{1};
};

}  // namespace ember::dist
