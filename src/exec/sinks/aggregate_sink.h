// The sink of a global aggregate: per-partition accumulators, merged in partition order.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "ember/batch.h"
#include "exec/sink.h"
#include "expr/accumulator.h"
#include "expr/expr_node.h"

namespace ember {

/// Feeds every batch of a partition to that partition's accumulators (one per aggregate); a
/// finished partition hands its partial state over. Thread-safe across partitions.
class AggregateSink : public Sink {
 public:
  /// `aggregates` are agg()'s expressions over `input`; `result` is their one-row schema.
  AggregateSink(std::vector<ExprPtr> aggregates, const Schema& input, Schema result,
                int num_partitions);
  std::unique_ptr<PartitionSink> open(int partition) override;
  /// The one-row result, partials merged in partition order (so float sums are reproducible).
  /// Call after the pipeline ended; InvalidArgument when an int64 sum overflows.
  Table result() const;

 private:
  class Part;

  std::vector<ExprPtr> inputs_;  ///< each aggregate's input expression
  std::vector<Accumulator> prototype_;  ///< empty states, copied for each partition
  Schema result_;
  std::mutex mu_;
  std::vector<std::optional<std::vector<Accumulator>>> partials_;
};

}  // namespace ember
