// The breaker of a limit: the first n rows of its input, in order.
#pragma once

#include <cstdint>

#include "exec/pipeline_breaker.h"

namespace ember {

/// Gathers the first `limit` rows in input order; the pipeline is satisfied (its partitions
/// stop) once the partitions before the open ones hold enough. The next pipeline reads them
/// in the partitions they came from.
class LimitSink final : public PipelineBreaker {
 public:
  LimitSink(int64_t limit, Schema schema) : limit_(limit), schema_(std::move(schema)) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  bool full(const LocalSinkState& local) const override;
  int64_t rows_per_partition() const override { return limit_; }
  bool satisfied(const GlobalSinkState& global) const override;
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  int64_t limit_;
  Schema schema_;
};

}  // namespace ember
