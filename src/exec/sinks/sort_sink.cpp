// Sort and top-k: per-partition runs (top-k compacts to k rows as it goes), merged at the end.
#include "exec/sinks/sort_sink.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

#include "exec/relational/run_merge.h"
#include "exec/relational/sorted_run.h"
#include "exec/relational/spill_file.h"
#include "exec/sources/merge_source.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {

/// A sorted run written to disk: its rows' columns, then its keys'.
struct SpilledRun {
  std::unique_ptr<SpillFile> file;
  std::vector<DataType> types;
};

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

/// About how many bytes of a spilled run the final merge holds at once: each run is written
/// in chunks of this size, and the merge keeps one chunk per run in memory.
constexpr int64_t kSpillChunkBytes = int64_t{1} << 20;

/// Sorts the builder's rows into a run and writes it to a spill file, in chunks.
SpilledRun spill_run(RunBuilder& builder, const std::vector<KeyOrder>& order) {
  SortedRun run = builder.finish(order, -1);
  SpilledRun out{std::make_unique<SpillFile>(), {}};
  std::vector<Column> columns = run.rows.columns();
  columns.insert(columns.end(), run.keys.begin(), run.keys.end());
  for (const Column& c : columns) out.types.push_back(c.type());
  const int64_t rows = run.rows.num_rows();
  const int64_t bytes = std::max<int64_t>(1, run.rows.byte_size());
  const int64_t chunk = std::max<int64_t>(1024, rows * kSpillChunkBytes / bytes);
  for (int64_t at = 0; at < rows; at += chunk) {
    std::vector<Column> piece;
    for (const Column& c : columns) piece.push_back(c.slice(at, std::min(chunk, rows - at)));
    out.file->write(piece);
  }
  return out;
}

/// A spilled run read back a chunk at a time; its file goes once read to the end.
class SpilledChunks final : public RunChunks {
 public:
  SpilledChunks(SpilledRun run, const Schema& schema) : run_(std::move(run)), schema_(schema) {}
  std::optional<SortedRun> next() override {
    if (!run_.file) return std::nullopt;
    std::optional<std::vector<Column>> columns = run_.file->read_next(run_.types);
    if (!columns) {
      run_.file.reset();  // removes the file
      return std::nullopt;
    }
    const auto width = static_cast<std::ptrdiff_t>(schema_.num_fields());
    SortedRun chunk;
    chunk.rows = Batch(schema_, std::vector<Column>(columns->begin(), columns->begin() + width));
    chunk.keys.assign(columns->begin() + width, columns->end());
    return chunk;
  }

 private:
  SpilledRun run_;
  Schema schema_;
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
    part.spilled.push_back(spill_run(part.builder, order_));
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
      for (SpilledRun& s : p->spilled)
        chunks.push_back(std::make_unique<SpilledChunks>(std::move(s), schema_));
      rows += p->rows;
      chunks.push_back(std::make_unique<RunInMemory>(std::move(p->last)));
    }
    return std::make_shared<MergeSource>(schema_, std::move(chunks), order_, rows, "Sort");
  }
  std::vector<SortedRun> runs;
  for (auto& p : by_partition) {
    if (!p) continue;
    runs.push_back(std::move(p->last));
  }
  Batch merged = merge_runs(runs, schema_, order_, limit_);
  const int parts = static_cast<int>(std::clamp<int64_t>(merged.num_rows() / (64 * 1024), 1, 16));
  return std::make_shared<TableSource>(Table(schema_, {merged}), parts,
                                       limit_ >= 0 ? "TopK" : "Sort");
}

}  // namespace ember
