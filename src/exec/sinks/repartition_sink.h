// The breaker of a repartition: every row, in order, cut into a new number of partitions.
#pragma once

#include "exec/pipeline_breaker.h"

namespace ember {

/// Gathers its whole input in memory; the next pipeline reads it as `num_partitions`
/// contiguous, near-equal partitions.
class RepartitionSink final : public PipelineBreaker {
 public:
  RepartitionSink(int num_partitions, Schema schema)
      : num_partitions_(num_partitions), schema_(std::move(schema)) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  int num_partitions_;
  Schema schema_;
};

}  // namespace ember
