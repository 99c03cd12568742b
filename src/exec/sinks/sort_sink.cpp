// Sort and top-k: per-partition runs (top-k compacts to k rows as it goes), merged at the end.
#include "exec/sinks/sort_sink.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "exec/relational/column_codec.h"
#include "exec/relational/run_merge.h"
#include "exec/relational/sorted_run.h"
#include "exec/relational/spilled_run.h"
#include "exec/sources/merge_source.h"
#include "exec/sources/sorted_ranges_source.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {

/// A partition's runs in the order its rows came: the one another rank sorted (its first rows,
/// when it ran there), the spilled ones, then the last in memory.
struct PartitionRuns {
  std::optional<SortedRun> first;
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
  /// A full sort's partition another rank sorted (its partial state): its first rows, before
  /// any that came as rows (which arrive before it).
  std::optional<SortedRun> adopted;
  int64_t bytes = 0;  ///< held by builder
  int64_t rows = 0;   ///< sunk so far
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
  PartitionRuns done{std::move(part.adopted), std::move(part.spilled), best_rows(local), part.rows};
  auto& runs = global.as<Runs>();
  std::lock_guard<std::mutex> lock(runs.mu);
  runs.by_partition[static_cast<size_t>(part.partition)] = std::move(done);
}

bool SortSink::partial_full(GlobalSinkState& global, LocalSinkState& local) const {
  // A top-k's state stays at k rows. A full sort's rows travel sorted until the partition holds
  // half its share of the budget (so that it does not spill where it runs); rows after that
  // travel unsorted, and the receiving rank sorts them in.
  auto& runs = global.as<Runs>();
  const auto& part = local.as<PartitionRows>();
  return limit_ < 0 && runs.memory_budget_bytes > 0 &&
         (!part.spilled.empty() ||
          2 * part.bytes > runs.memory_budget_bytes / std::max(1, runs.partitions));
}

std::string SortSink::encode_partial(GlobalSinkState&, LocalSinkState& local) const {
  // The partition's rows in key order (a top-k's best `limit`), their columns as they are.
  auto& part = local.as<PartitionRows>();
  Batch rows;
  if (part.spilled.empty()) {
    rows = best_rows(local).rows;
  } else {  // a batch larger than the budget's share spilled here: merged back from disk
    std::vector<std::unique_ptr<RunChunks>> chunks;
    for (SpilledRun& s : part.spilled) chunks.push_back(s.read(schema_));
    chunks.push_back(std::make_unique<RunInMemory>(best_rows(local)));
    part.spilled.clear();
    RunMergeReader merged(std::move(chunks), order_, 64 * 1024);
    std::vector<Batch> batches;
    while (std::optional<Batch> b = merged.next()) batches.push_back(std::move(*b));
    rows = batches.empty() ? best_rows(local).rows : Batch::concat(batches);
  }
  std::string out(sizeof(int64_t), '\0');
  const int64_t n = rows.num_rows();
  std::memcpy(out.data(), &n, sizeof n);
  append_columns(rows.columns(), out);
  return out;
}

void SortSink::adopt_partial(GlobalSinkState&, LocalSinkState& local,
                             std::string_view bytes) const {
  int64_t rows = 0;
  if (bytes.size() < sizeof rows) throw Error("a sort's partial state cut short");
  std::memcpy(&rows, bytes.data(), sizeof rows);
  bytes.remove_prefix(sizeof rows);
  if (rows < 0 || (limit_ >= 0 && rows > limit_))
    throw Error("a sort's partial of a broken length");
  std::vector<DataType> types;
  for (const Field& f : schema_.fields()) types.push_back(f.type);
  std::vector<Column> columns = read_columns(bytes, types);
  if (!bytes.empty()) throw Error("a sort's partial state followed by stray bytes");
  for (const Column& c : columns)
    if (c.size() != rows) throw Error("a sort's partial state with columns of other lengths");
  const Batch batch = columns.empty() ? Batch::empty_with_rows(rows) : Batch(schema_, columns);
  auto& part = local.as<PartitionRows>();
  part.rows += rows;
  if (limit_ >= 0) {
    // Already in order: combine() sorts them again (stable), which keeps them as they are.
    part.builder.add(batch);
    return;
  }
  // Sorted where it ran: the partition's first run, not sorted again.
  RunBuilder sorted(schema_, keys_);
  sorted.add(batch);
  part.adopted = sorted.finish_sorted();
}

std::optional<RangeKeys> SortSink::range_keys() const {
  if (limit_ >= 0) return std::nullopt;
  RangeKeys keys;
  for (const ExprPtr& key : keys_) {
    const int c = key->kind == ExprKind::Column ? schema_.index_of(key->name) : -1;
    if (c < 0) return std::nullopt;
    keys.columns.push_back(c);
  }
  keys.order = order_;
  return keys;
}

std::vector<TaggedRun> SortSink::key_runs(GlobalSinkState& global) const {
  // Tags: the partition in the high bits, the run's place among its partition's below.
  constexpr int kRunBits = 20;
  std::vector<TaggedRun> out;
  auto& by_partition = global.as<Runs>().by_partition;
  for (size_t p = 0; p < by_partition.size(); ++p) {
    if (!by_partition[p]) continue;
    PartitionRuns& runs = *by_partition[p];
    int64_t seq = static_cast<int64_t>(p) << kRunBits;
    const auto add = [&](Batch rows) {
      if (rows.num_rows() > 0) out.push_back({seq++, std::move(rows)});
    };
    if (runs.first) add(std::move(runs.first->rows));
    for (SpilledRun& spilled : runs.spilled) {
      std::unique_ptr<RunChunks> chunks = spilled.read(schema_);
      std::vector<Batch> rows;
      while (std::optional<SortedRun> chunk = chunks->next())
        rows.push_back(std::move(chunk->rows));
      if (!rows.empty()) add(rows.size() == 1 ? rows[0] : Batch::concat(rows));
    }
    add(std::move(runs.last.rows));
    by_partition[p].reset();
  }
  return out;
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
      if (p->first) chunks.push_back(std::make_unique<RunInMemory>(std::move(*p->first)));
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
    if (p->first) {
      rows += p->first->rows.num_rows();
      runs.push_back(std::move(*p->first));
    }
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
