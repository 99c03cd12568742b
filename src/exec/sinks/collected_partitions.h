// Batches gathered in memory per partition, in order, optionally only the first `limit` rows
// of the whole input (in partition order): the global state of the sinks that collect.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "exec/sink.h"

namespace ember {

class CollectedPartitions final : public GlobalSinkState {
 public:
  /// A partition's rows so far; its local state.
  struct Partition final : LocalSinkState {
    explicit Partition(int p) : index(p) {}
    int index;
    int64_t rows = 0;
  };

  /// `limit` < 0: keep every row.
  CollectedPartitions(int num_partitions, int64_t limit);

  /// Keeps `batch`, cut to what the limit leaves room for in this partition.
  void append(Partition& part, const Batch& batch);
  /// The partition ended (or is full): once a prefix of finished partitions holds `limit`
  /// rows, satisfied() turns true.
  void finish(const Partition& part);
  bool satisfied() const { return satisfied_.load(std::memory_order_acquire); }
  /// The batches per partition, trimmed to the limit in order. Call once, after the pipeline.
  std::vector<std::vector<Batch>> take();
  /// take(), in one list.
  std::vector<Batch> take_all();

 private:
  int64_t limit_;
  std::mutex mu_;
  std::vector<std::vector<Batch>> parts_;
  std::vector<int64_t> rows_;
  std::vector<bool> finished_;
  std::atomic<bool> satisfied_{false};
};

}  // namespace ember
