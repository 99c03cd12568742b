// Sinks that keep batches in memory, per partition and in order.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "exec/sink.h"

namespace ember {

/// Keeps every batch; with a row limit, keeps the first `limit` rows in input order and
/// reports satisfied() once the partitions before the open ones hold enough.
class CollectSink : public Sink {
 public:
  explicit CollectSink(int num_partitions, int64_t limit = -1);
  std::unique_ptr<PartitionSink> open(int partition) override;
  bool satisfied() const override { return satisfied_.load(std::memory_order_acquire); }
  /// The batches per partition, trimmed to the limit in order. Call after the pipeline ended.
  std::vector<std::vector<Batch>> take_partitions();

 private:
  class Part;
  void partition_finished(int partition);
  int64_t limit_;
  std::mutex mu_;
  std::vector<std::vector<Batch>> parts_;
  std::vector<int64_t> rows_;
  std::vector<bool> finished_;
  std::atomic<bool> satisfied_{false};
};

}  // namespace ember
