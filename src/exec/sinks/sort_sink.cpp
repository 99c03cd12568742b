// Sort and top-k: per-partition runs (top-k compacts to k rows as it goes), merged at the end.
#include "exec/sinks/sort_sink.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include "exec/relational/sorted_run.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {

struct Runs final : GlobalSinkState {
  explicit Runs(int num_partitions) : by_partition(static_cast<size_t>(num_partitions)) {}
  std::mutex mu;
  std::vector<std::optional<SortedRun>> by_partition;  ///< guarded by mu
};

struct PartitionRows final : LocalSinkState {
  PartitionRows(int p, const Schema& schema, const std::vector<ExprPtr>& keys)
      : partition(p), builder(schema, keys) {}
  int partition;
  RunBuilder builder;
  std::optional<SortedRun> kept;  ///< top-k: the best k rows of the batches before builder's
};

/// Top-k compacts a partition's rows once it holds this many times k (and at least a morsel).
constexpr int64_t kCompactFactor = 4;

}  // namespace

SortSink::SortSink(std::vector<ExprPtr> keys, std::vector<KeyOrder> order, Schema schema,
                   int64_t limit)
    : keys_(std::move(keys)), order_(std::move(order)), schema_(std::move(schema)), limit_(limit) {}

std::unique_ptr<GlobalSinkState> SortSink::global_state(int num_partitions) const {
  return std::make_unique<Runs>(num_partitions);
}

std::unique_ptr<LocalSinkState> SortSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartitionRows>(partition, schema_, keys_);
}

/// The partition's best rows so far as one run; on ties its earlier rows (kept) come first.
SortedRun SortSink::best_rows(LocalSinkState& local) const {
  auto& part = local.as<PartitionRows>();
  SortedRun fresh = part.builder.finish(order_, limit_);
  if (!part.kept) return fresh;
  Batch best = merge_runs({std::move(*part.kept), std::move(fresh)}, schema_, order_, limit_);
  part.kept.reset();
  part.builder.add(best);
  return part.builder.finish(order_, limit_);
}

void SortSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  auto& part = local.as<PartitionRows>();
  part.builder.add(batch);
  // Top-k keeps only the partition's best k so far, so its memory stays O(k).
  if (limit_ >= 0 && part.builder.rows() >= std::max<int64_t>(kCompactFactor * limit_, 64 * 1024))
    part.kept = best_rows(local);
}

void SortSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  SortedRun run = best_rows(local);
  auto& runs = global.as<Runs>();
  std::lock_guard<std::mutex> lock(runs.mu);
  runs.by_partition[static_cast<size_t>(local.as<PartitionRows>().partition)] = std::move(run);
}

std::shared_ptr<const Source> SortSink::finalize(GlobalSinkState& global) const {
  std::vector<SortedRun> runs;
  for (auto& r : global.as<Runs>().by_partition)
    if (r) runs.push_back(std::move(*r));
  Batch merged = merge_runs(runs, schema_, order_, limit_);
  const int parts = static_cast<int>(std::clamp<int64_t>(merged.num_rows() / (64 * 1024), 1, 16));
  return std::make_shared<TableSource>(Table(schema_, {merged}), parts,
                                       limit_ >= 0 ? "TopK" : "Sort");
}

}  // namespace ember
