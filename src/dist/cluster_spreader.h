// Rank 0's side of spreading a query's source partitions over the ranks (exec's
// PartitionSpreader): which partitions go where, and the rows that come back.
#pragma once

#include <atomic>
#include <cstdint>

#include "exec/partition_spreading.h"

namespace ember::dist {

/// Partition p of the first pipeline runs on rank p % ranks (round robin, so that every rank
/// reads about as much and a query's first rows come from rank 0). Each worker rank runs its
/// share with its own pipeline threads; its UDF batches go to the pool's actors on that rank
/// when it hosts some (least-loaded among them, no network), else to the query's pool on
/// rank 0, which hands them to the least-loaded actor of the cluster; when every other rank
/// has actors of its own, rank 0's pool keeps rank 0's partitions on rank 0's actors likewise.
/// Rows come back under a window per rank (partition_worker.h). A query that writes CSV or
/// JSON lines from its first pipeline has each rank write its own partitions' parts. Plans whose
/// first pipeline cannot travel (pipeline_message.h) run on rank 0 alone, as explain() says.
class ClusterSpreader final : public PartitionSpreader {
 public:
  explicit ClusterSpreader(int ranks) : ranks_(ranks) {}
  std::unique_ptr<SpreadRun> spread(const LogicalNode& optimized, const PhysicalPlan& plan,
                                    QueryContext& query, const SpreadOutput& output) override;
  std::string explain(const LogicalNode& optimized, const PhysicalPlan& plan) override;

 private:
  int ranks_;
  std::atomic<uint64_t> next_query_{1};
};

}  // namespace ember::dist
