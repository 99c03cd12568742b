// The breaker of a global aggregate: per-partition accumulators, merged in partition order.
#pragma once

#include <vector>

#include "exec/pipeline_breaker.h"
#include "expr/accumulator.h"
#include "expr/expr_node.h"

namespace ember {

/// Feeds every batch of a partition to that partition's accumulators (one per aggregate); a
/// finished partition hands its partial state over. The next pipeline reads one row.
class AggregateSink final : public PipelineBreaker {
 public:
  /// `aggregates` are agg()'s expressions over `input`; `result` is their one-row schema.
  AggregateSink(std::vector<ExprPtr> aggregates, const Schema& input, Schema result);
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// A partition's accumulators travel as their running states.
  bool ships_partials() const override { return true; }
  std::string encode_partial(GlobalSinkState& global, LocalSinkState& local) const override;
  void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                     std::string_view bytes) const override;
  /// The one-row result, partials merged in partition order (so float sums are reproducible).
  /// InvalidArgument when an int64 sum overflows.
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  std::vector<ExprPtr> inputs_;         ///< each aggregate's input expression
  std::vector<Accumulator> prototype_;  ///< empty states, copied for each partition
  Schema result_;
};

}  // namespace ember
