// The breaker that ends a join's build (right) side: gathers its rows and indexes them in the
// join's hash table, which the probe pipeline then reads. Past the memory budget the rows go
// to disk instead, split by key hash (a grace hash join: see JoinSpill).
#pragma once

#include <memory>

#include "exec/pipeline_breaker.h"
#include "exec/relational/join_hash_table.h"
#include "exec/relational/join_spill.h"

namespace ember {

class JoinBuildSink final : public PipelineBreaker {
 public:
  JoinBuildSink(std::shared_ptr<JoinHashTable> table, std::shared_ptr<JoinSpill> spill,
                Schema schema)
      : table_(std::move(table)), spill_(std::move(spill)), schema_(std::move(schema)) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  /// Keeps the batch; when the rows kept pass the budget, moves them all to the spill and
  /// sends every later batch there.
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// Builds the hash table from the rows in partition order (an empty one when the rows
  /// spilled). Its source has no rows: the probe pipeline reads its own input and the table.
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  std::shared_ptr<JoinHashTable> table_;
  std::shared_ptr<JoinSpill> spill_;
  Schema schema_;
};

}  // namespace ember
