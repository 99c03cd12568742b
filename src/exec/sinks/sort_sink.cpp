// Sort and top-k: per-partition runs (top-k compacts to k rows as it goes), merged at the end.
#include "exec/sinks/sort_sink.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

#include "exec/relational/run_merge.h"
#include "exec/relational/sorted_run.h"
#include "exec/relational/spilled_run.h"
#include "exec/sources/merge_source.h"
#include "exec/sources/sorted_ranges_source.h"
#include "exec/sources/table_source.h"
#include "udf/value_codec.h"

namespace ember {

namespace {

/// A partition's runs in the order its rows came: the spilled ones, then the last in memory.
struct PartitionRuns {
  std::vector<SpilledRun> spilled;
  SortedRun last;
  int64_t rows = 0;  ///< in all of them
};

struct Runs final : GlobalSinkState {
  explicit Runs(int num_partitions)
      : partitions(num_partitions), by_partition(static_cast<size_t>(num_partitions)) {}
  int partitions;
  std::mutex mu;
  std::vector<std::optional<PartitionRuns>> by_partition;  ///< guarded by mu
};

struct PartitionRows final : LocalSinkState {
  PartitionRows(int p, const Schema& schema, const std::vector<ExprPtr>& keys)
      : partition(p), builder(schema, keys) {}
  int partition;
  RunBuilder builder;
  std::optional<SortedRun> kept;  ///< top-k: the best k rows of the batches before builder's
  int64_t bytes = 0;              ///< held by builder
  int64_t rows = 0;               ///< sunk so far
  std::vector<SpilledRun> spilled;
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

void SortSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  auto& part = local.as<PartitionRows>();
  part.builder.add(batch);
  part.bytes += batch.byte_size();
  part.rows += batch.num_rows();
  // A full sort past its share of the budget writes its rows so far as a sorted run.
  auto& runs = global.as<Runs>();
  if (limit_ < 0 && runs.memory_budget_bytes > 0 &&
      part.bytes > runs.memory_budget_bytes / std::max(1, runs.partitions)) {
    part.spilled.push_back(SpilledRun::write(part.builder.finish(order_, -1)));
    part.bytes = 0;
  }
  // Top-k keeps only the partition's best k so far, so its memory stays O(k).
  if (limit_ >= 0 && part.builder.rows() >= std::max<int64_t>(kCompactFactor * limit_, 64 * 1024))
    part.kept = best_rows(local);
}

void SortSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& part = local.as<PartitionRows>();
  PartitionRuns done{std::move(part.spilled), best_rows(local), part.rows};
  auto& runs = global.as<Runs>();
  std::lock_guard<std::mutex> lock(runs.mu);
  runs.by_partition[static_cast<size_t>(part.partition)] = std::move(done);
}

std::string SortSink::encode_partial(GlobalSinkState&, LocalSinkState& local) const {
  // At most `limit` rows, value by value: a top-k's k is small next to its input.
  const SortedRun best = best_rows(local);
  process::MessageWriter out;
  out.put(best.rows.num_rows());
  for (int c = 0; c < best.rows.num_columns(); ++c)
    for (int64_t i = 0; i < best.rows.num_rows(); ++i) put_value(out, best.rows.column(c).get(i));
  return out.bytes();
}

void SortSink::adopt_partial(GlobalSinkState&, LocalSinkState& local,
                             std::string_view bytes) const {
  auto in = process::MessageReader::unframed(bytes);
  const auto rows = in.get<int64_t>();
  if (rows < 0 || (limit_ >= 0 && rows > limit_)) throw Error("a top-k partial of a broken length");
  std::vector<Column> columns;
  for (const Field& f : schema_.fields()) {
    ColumnBuilder column(f.type, rows);
    for (int64_t i = 0; i < rows; ++i) column.append_value(get_value(in));
    columns.push_back(column.finish());
  }
  if (in.remaining() != 0) throw Error("a top-k partial followed by stray bytes");
  auto& part = local.as<PartitionRows>();
  // Already in order: combine() sorts them again (stable), which keeps them as they are.
  part.builder.add(columns.empty() ? Batch::empty_with_rows(rows) : Batch(schema_, columns));
  part.rows += rows;
}

std::shared_ptr<const Source> SortSink::finalize(GlobalSinkState& global) const {
  auto& by_partition = global.as<Runs>().by_partition;
  const bool spilled = std::any_of(by_partition.begin(), by_partition.end(),
                                   [](const auto& p) { return p && !p->spilled.empty(); });
  if (spilled) {
    // Past the budget: the runs are merged as the next pipeline reads them, one chunk of each
    // in memory at a time. Partition by partition, each one's runs in row order: ties keep
    // the input order.
    std::vector<std::unique_ptr<RunChunks>> chunks;
    int64_t rows = 0;
    for (auto& p : by_partition) {
      if (!p) continue;
      for (SpilledRun& s : p->spilled) chunks.push_back(s.read(schema_));
      rows += p->rows;
      chunks.push_back(std::make_unique<RunInMemory>(std::move(p->last)));
    }
    return std::make_shared<MergeSource>(schema_, std::move(chunks), order_, rows, "Sort");
  }
  std::vector<SortedRun> runs;
  int64_t rows = 0;
  for (auto& p : by_partition) {
    if (!p) continue;
    rows += p->last.rows.num_rows();
    runs.push_back(std::move(p->last));
  }
  const int parts = static_cast<int>(std::clamp<int64_t>(rows / (64 * 1024), 1, 16));
  // A full sort hands on key ranges that the next pipeline merges in parallel as it reads.
  if (limit_ < 0)
    return std::make_shared<SortedRangesSource>(schema_, std::move(runs), order_, parts, "Sort");
  Batch merged = merge_runs(runs, schema_, order_, limit_);
  return std::make_shared<TableSource>(Table(schema_, {merged}), 1, "TopK");
}

}  // namespace ember
