// The output sink of a query that collects: every row in memory, in partition order.
#pragma once

#include "exec/output_sink.h"

namespace ember {

/// Keeps every batch (with a limit >= 0, only the first `limit` rows in input order, and the
/// pipeline is satisfied once the partitions before the open ones hold enough). The table
/// holds the partitions' batches one after the other.
class CollectSink final : public OutputSink {
 public:
  explicit CollectSink(Schema schema, int64_t limit = -1)
      : schema_(std::move(schema)), limit_(limit) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  bool full(const LocalSinkState& local) const override;
  bool satisfied(const GlobalSinkState& global) const override;
  Table finalize(GlobalSinkState& global) const override;

 private:
  Schema schema_;
  int64_t limit_;
};

}  // namespace ember
