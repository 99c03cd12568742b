// Hash group-by: per-partition tables, hash-partitioned merge, output sorted by key.
#include "exec/sinks/group_by_sink.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "ember/error.h"
#include "exec/relational/column_gather.h"
#include "exec/relational/group_table.h"
#include "exec/relational/key_ranges.h"
#include "exec/relational/row_order.h"
#include "exec/relational/spill_file.h"
#include "exec/relational/spilled_run.h"
#include "exec/sources/merge_source.h"
#include "exec/sources/table_source.h"
#include "expr/evaluate.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"

namespace ember {

namespace {

using Split = std::vector<GroupTable>;  ///< one table per hash partition

/// A partition's rows that came after its table passed its share of the memory budget: the
/// key and input columns, one file per hash partition (empty while nothing spilled).
struct Spilled {
  std::vector<std::unique_ptr<SpillFile>> files;
  std::vector<DataType> types;  ///< the keys', then the inputs'
};

struct Partials final : GlobalSinkState {
  explicit Partials(int num_partitions)
      : partitions(num_partitions),
        by_partition(static_cast<size_t>(num_partitions)),
        later(static_cast<size_t>(num_partitions)),
        spilled(static_cast<size_t>(num_partitions)) {}
  int partitions;
  std::mutex mu;
  std::vector<std::optional<Split>> by_partition;  ///< guarded by mu
  /// A partition aggregated on another rank: the groups of the rows it spilled there, merged
  /// after its table's, as this rank merges what its own partitions spilled.
  std::vector<std::optional<Split>> later;  ///< guarded by mu
  std::vector<Spilled> spilled;             ///< guarded by mu
  /// Bytes of the adopted partitions' tables held in by_partition and later.
  int64_t adopted_bytes = 0;  ///< guarded by mu
  /// Adopted partitions past the memory budget, per hash partition: one group of columns each
  /// (partition, its table, the groups it spilled where it ran; encoded), read back one hash
  /// partition at a time when merged. Empty while none went there.
  std::vector<std::unique_ptr<SpillFile>> adopted_spill;  ///< guarded by mu
};

struct PartitionTable final : LocalSinkState {
  PartitionTable(int p, GroupTable t) : partition(p), table(std::move(t)) {}
  int partition;
  GroupTable table;
  EncodedKeys keys;  ///< scratch, reused batch after batch
  Spilled spilled;
  std::optional<Split> shipped;        ///< the partition's groups, aggregated on another rank
  std::optional<Split> shipped_later;  ///< and the groups of the rows it spilled there
};

size_t merge_partition_of(uint64_t hash) {
  return static_cast<size_t>(hash >> 60) % GroupBySink::kMergePartitions;
}

/// The share (rank) that merges hash partition `r` when the states are exchanged.
int share_of_merge_partition(int r, int shares) { return r % shares; }

/// Runs `work(i)` for i in [0, n) on up to `threads` threads; rethrows the first error.
template <class Work>
void parallel_for(size_t n, unsigned threads, Work work) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto loop = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(loop);
  loop();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

/// Opens one spill file per hash partition: from now on the partition's rows go there.
void start_spilling(Spilled& spilled) {
  for (int r = 0; r < GroupBySink::kMergePartitions; ++r)
    spilled.files.push_back(std::make_unique<SpillFile>());
}

/// Writes a batch's key and input columns to the spill files of their rows' hash partitions.
void spill_rows(Spilled& spilled, const EncodedKeys& keys, const std::vector<Column>& columns) {
  if (spilled.types.empty())
    for (const Column& c : columns) spilled.types.push_back(c.type());
  std::vector<std::vector<int64_t>> rows(GroupBySink::kMergePartitions);
  for (int64_t i = 0; i < keys.rows(); ++i)
    rows[merge_partition_of(hash_key(keys.row(i)))].push_back(i);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].empty()) continue;
    std::vector<Column> part;
    for (const Column& c : columns) part.push_back(gather(c, rows[r]));
    spilled.files[r]->write(part);
  }
}

/// The groups of one hash partition's spilled rows, read back and aggregated.
GroupTable replay(SpillFile& file, const std::vector<DataType>& types, size_t num_keys,
                  const std::vector<GroupedAggregate>& prototype) {
  GroupTable table(prototype);
  EncodedKeys encoded;
  for (auto& columns : file.read_all(types)) {
    const int64_t n = columns.empty() ? 0 : columns[0].size();
    std::vector<Column> keys(columns.begin(),
                             columns.begin() + static_cast<std::ptrdiff_t>(num_keys));
    std::vector<Column> inputs(columns.begin() + static_cast<std::ptrdiff_t>(num_keys),
                               columns.end());
    encode_keys(keys, n, encoded);
    table.add(encoded, inputs);
  }
  return table;
}

/// Writes an adopted partition's tables to the state's files, one group per hash partition.
void spill_adopted(Partials& partials, int partition, const Split& table, const Split& later) {
  if (partials.adopted_spill.empty())
    for (int r = 0; r < GroupBySink::kMergePartitions; ++r)
      partials.adopted_spill.push_back(std::make_unique<SpillFile>());
  const auto encoded = [](const GroupTable& t) {
    process::MessageWriter out;
    t.encode(out);
    const std::string& bytes = out.bytes();
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  };
  for (size_t r = 0; r < table.size(); ++r)
    partials.adopted_spill[r]->write(
        {Column::from(std::vector<int64_t>{partition}),
         Column::from(std::vector<std::vector<uint8_t>>{encoded(table[r])}),
         Column::from(std::vector<std::vector<uint8_t>>{encoded(later[r])})});
}

/// Hash partition `r`'s adopted tables that went to disk, by partition: (table, later).
std::map<int64_t, std::pair<GroupTable, GroupTable>> read_adopted(
    Partials& partials, size_t r, const std::vector<GroupedAggregate>& prototype) {
  std::map<int64_t, std::pair<GroupTable, GroupTable>> out;
  if (partials.adopted_spill.empty()) return out;
  const auto decoded = [&](const Column& c) {
    auto in = process::MessageReader::unframed(c.value<std::string_view>(0));
    return GroupTable::decode(in, prototype);
  };
  SpillFile& file = *partials.adopted_spill[r];
  while (auto group = file.read_next({int64(), binary(), binary()}))
    out.emplace((*group)[0].value<int64_t>(0),
                std::pair{decoded((*group)[1]), decoded((*group)[2])});
  partials.adopted_spill[r].reset();  // removes the file
  return out;
}

}  // namespace

GroupBySink::GroupBySink(std::vector<ExprPtr> keys, std::vector<ExprPtr> aggregates,
                         const Schema& input, Schema result)
    : keys_(std::move(keys)), result_(std::move(result)) {
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const ExprNode& a = aggregate_of(*aggregates[i]);
    inputs_.push_back(a.children[0]);
    prototype_.emplace_back(a.agg, infer_type(*a.children[0], input),
                            result_.field(static_cast<int>(keys_.size() + i)).type,
                            to_string(*aggregates[i]));
  }
}

std::unique_ptr<GlobalSinkState> GroupBySink::global_state(int num_partitions) const {
  return std::make_unique<Partials>(num_partitions);
}

std::unique_ptr<LocalSinkState> GroupBySink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartitionTable>(partition, GroupTable(prototype_));
}

void GroupBySink::sink_after_partial(GlobalSinkState& global, LocalSinkState& local,
                                     const Batch& batch) const {
  auto& part = local.as<PartitionTable>();
  if (part.spilled.files.empty()) start_spilling(part.spilled);
  sink(global, local, batch);
}

void GroupBySink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  auto& part = local.as<PartitionTable>();
  std::vector<Column> keys, inputs;
  for (const auto& k : keys_) keys.push_back(evaluate(*k, batch));
  for (const auto& in : inputs_) inputs.push_back(evaluate(*in, batch));
  encode_keys(keys, batch.num_rows(), part.keys);
  if (!part.spilled.files.empty()) {
    keys.insert(keys.end(), inputs.begin(), inputs.end());
    spill_rows(part.spilled, part.keys, keys);
    return;
  }
  part.table.add(part.keys, inputs);
  // Past its share of the budget the table stops growing: later rows go to spill files by hash
  // partition and are aggregated there one hash partition at a time, after the scan.
  auto& partials = global.as<Partials>();
  if (!keys_.empty() && partials.memory_budget_bytes > 0 &&
      part.table.estimated_bytes() >
          partials.memory_budget_bytes / std::max(1, partials.partitions))
    start_spilling(part.spilled);
}

std::vector<GroupTable> GroupBySink::split(const GroupTable& table) const {
  Split split;
  for (int r = 0; r < kMergePartitions; ++r) {
    split.emplace_back(prototype_);
    split.back().merge(table,
                       [r](uint64_t h) { return merge_partition_of(h) == static_cast<size_t>(r); });
  }
  return split;
}

void GroupBySink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& part = local.as<PartitionTable>();
  // A shipped partition's rows were aggregated where it ran; those that came after its table
  // was full were spilled here.
  Split split = part.shipped ? std::move(*part.shipped) : this->split(part.table);
  auto& partials = global.as<Partials>();
  std::lock_guard<std::mutex> lock(partials.mu);
  if (part.shipped_later) {
    // Adopted from another rank (an exchange's share, or a partial state): past the budget
    // it waits on disk, as this rank's own partitions' rows past their share of it do.
    int64_t bytes = 0;
    for (size_t r = 0; r < split.size(); ++r)
      bytes += split[r].estimated_bytes() + (*part.shipped_later)[r].estimated_bytes();
    if (partials.memory_budget_bytes > 0 &&
        partials.adopted_bytes + bytes > partials.memory_budget_bytes) {
      spill_adopted(partials, part.partition, split, *part.shipped_later);
      partials.spilled[static_cast<size_t>(part.partition)] = std::move(part.spilled);
      return;
    }
    partials.adopted_bytes += bytes;
  }
  partials.by_partition[static_cast<size_t>(part.partition)] = std::move(split);
  partials.later[static_cast<size_t>(part.partition)] = std::move(part.shipped_later);
  partials.spilled[static_cast<size_t>(part.partition)] = std::move(part.spilled);
}

bool GroupBySink::partial_full(GlobalSinkState&, LocalSinkState& local) const {
  // Past the budget's share, or past what one message between ranks carries comfortably.
  constexpr int64_t kMostPartialBytes = int64_t{512} << 20;
  const auto& part = local.as<PartitionTable>();
  return !part.spilled.files.empty() || part.table.estimated_bytes() > kMostPartialBytes;
}

void GroupBySink::ship(LocalSinkState& local,
                       const std::function<void(int r, const GroupTable& table,
                                                const GroupTable& later)>& ship) const {
  auto& part = local.as<PartitionTable>();
  const std::vector<GroupTable> tables = split(part.table);
  const GroupTable none(prototype_);
  // The rows past the partition's budget, aggregated on their own: the adopting rank merges
  // them after the table's, where a local run merges what it spilled (the same float sums).
  // One hash partition's at a time, so that no more than that is held besides the table.
  for (int r = 0; r < kMergePartitions; ++r) {
    const auto at = static_cast<size_t>(r);
    if (part.spilled.files.empty()) {
      ship(r, tables[at], none);
      continue;
    }
    const GroupTable later =
        replay(*part.spilled.files[at], part.spilled.types, keys_.size(), prototype_);
    part.spilled.files[at].reset();
    ship(r, tables[at], later);
  }
}

std::string GroupBySink::encode_partial(GlobalSinkState&, LocalSinkState& local) const {
  process::MessageWriter out;
  ship(local, [&](int, const GroupTable& table, const GroupTable& later) {
    table.encode(out);
    later.encode(out);
  });
  return out.bytes();
}

std::vector<Sink::Share> GroupBySink::encode_partial_shares(GlobalSinkState&, LocalSinkState& local,
                                                            int shares) const {
  if (shares < 1) throw Error("internal: a partition's state split into no shares");
  const GroupTable empty(prototype_);
  std::vector<Share> out(static_cast<size_t>(shares));
  std::vector<process::MessageWriter> writers(static_cast<size_t>(shares));
  // Every share holds all kMergePartitions tables, empty but for the hash partitions it owns,
  // so that adopt_partial() takes it as it takes a whole partition's state.
  ship(local, [&](int r, const GroupTable& table, const GroupTable& later) {
    const auto owner = static_cast<size_t>(share_of_merge_partition(r, shares));
    for (size_t q = 0; q < writers.size(); ++q) {
      (q == owner ? table : empty).encode(writers[q]);
      (q == owner ? later : empty).encode(writers[q]);
    }
    out[owner].rows += static_cast<int64_t>(table.size() + later.size());
  });
  for (size_t q = 0; q < out.size(); ++q) out[q].bytes = writers[q].bytes();
  return out;
}

void GroupBySink::adopt_partial(GlobalSinkState&, LocalSinkState& local,
                                std::string_view bytes) const {
  auto in = process::MessageReader::unframed(bytes);
  Split split, later;
  for (int r = 0; r < kMergePartitions; ++r) {
    split.push_back(GroupTable::decode(in, prototype_));
    later.push_back(GroupTable::decode(in, prototype_));
  }
  if (in.remaining() != 0) throw Error("a partition's groups followed by stray bytes");
  auto& part = local.as<PartitionTable>();
  part.shipped = std::move(split);
  part.shipped_later = std::move(later);
}

GroupTable GroupBySink::merge_hash_partition(GlobalSinkState& global, size_t r) const {
  auto& partials = global.as<Partials>();
  GroupTable merged(prototype_);
  auto on_disk = read_adopted(partials, r, prototype_);
  // Partition by partition (its table, then its spilled rows), so first() sees the input order.
  for (size_t p = 0; p < partials.by_partition.size(); ++p) {
    if (partials.by_partition[p])
      merged.merge((*partials.by_partition[p])[r], [](uint64_t) { return true; });
    if (partials.later[p]) merged.merge((*partials.later[p])[r], [](uint64_t) { return true; });
    if (auto it = on_disk.find(static_cast<int64_t>(p)); it != on_disk.end()) {
      merged.merge(it->second.first, [](uint64_t) { return true; });
      merged.merge(it->second.second, [](uint64_t) { return true; });
      on_disk.erase(it);
    }
    Spilled& spilled = partials.spilled[p];
    if (spilled.files.empty()) continue;
    GroupTable later = replay(*spilled.files[r], spilled.types, keys_.size(), prototype_);
    spilled.files[r].reset();  // removes the file
    merged.merge(later, [](uint64_t) { return true; });
  }
  return merged;
}

SortedRun GroupBySink::groups_in_key_order(const std::vector<GroupTable>& tables) const {
  // Every group: table by table, each in first-seen order.
  std::vector<std::string_view> key_rows;
  for (const GroupTable& t : tables)
    for (size_t g = 0; g < t.size(); ++g) key_rows.push_back(t.key(g));
  std::vector<DataType> key_types;
  for (size_t k = 0; k < keys_.size(); ++k)
    key_types.push_back(result_.field(static_cast<int>(k)).type);
  std::vector<Column> key_columns = decode_keys(key_rows, key_types);
  const auto rows = static_cast<int64_t>(key_rows.size());
  std::vector<int64_t> order =
      sorted_rows(key_columns, rows, std::vector<KeyOrder>(keys_.size(), KeyOrder{}));

  SortedRun run;
  std::vector<Column> columns;
  for (const Column& k : key_columns) columns.push_back(gather(k, order));
  run.keys = columns;
  for (size_t a = 0; a < prototype_.size(); ++a) {
    // Each table finishes its own groups; the pieces are then put in key order.
    std::vector<Column> pieces;
    for (const GroupTable& t : tables) {
      std::vector<uint32_t> all(t.size());
      for (size_t g = 0; g < all.size(); ++g) all[g] = static_cast<uint32_t>(g);
      pieces.push_back(t.aggregates()[a].finish(all));
    }
    // The pieces concatenate in the order key_rows lists the groups, so `order` applies.
    Column all = pieces.size() == 1 ? pieces[0] : Column::concat(pieces);
    columns.push_back(gather(all, order));
  }
  run.rows = Batch(result_, std::move(columns));
  return run;
}

std::shared_ptr<const Source> GroupBySink::finalize(GlobalSinkState& global) const {
  auto& partials = global.as<Partials>();
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const bool spilled = !partials.adopted_spill.empty() ||
                       std::any_of(partials.spilled.begin(), partials.spilled.end(),
                                   [](const Spilled& s) { return !s.files.empty(); });
  if (spilled) {
    // Past the budget the groups are not all gathered in memory: each hash partition's groups
    // (a key lives in one only) are merged, put in key order and written out as a sorted run,
    // and the next pipeline reads the runs merged, one chunk of each in memory at a time.
    std::vector<std::optional<SpilledRun>> runs(kMergePartitions);
    std::atomic<int64_t> rows{0};
    parallel_for(runs.size(), threads, [&](size_t r) {
      std::vector<GroupTable> one;
      one.push_back(merge_hash_partition(global, r));
      SortedRun run = groups_in_key_order(one);
      rows += run.rows.num_rows();
      runs[r] = SpilledRun::write(run);
    });
    std::vector<std::unique_ptr<RunChunks>> chunks;
    for (auto& run : runs) chunks.push_back(run->read(result_));
    return std::make_shared<MergeSource>(result_, std::move(chunks),
                                         std::vector<KeyOrder>(keys_.size(), KeyOrder{}),
                                         rows.load(), "GroupBy");
  }
  std::vector<GroupTable> merged;
  for (int r = 0; r < kMergePartitions; ++r) merged.emplace_back(prototype_);
  parallel_for(merged.size(), threads,
               [&](size_t r) { merged[r] = merge_hash_partition(global, r); });
  if (keys_.empty()) merged[merge_partition_of(hash_key({}))].ensure_empty_key();
  SortedRun groups = groups_in_key_order(merged);
  const int64_t rows = groups.rows.num_rows();
  // Contiguous slices keep the key order across the next pipeline's partitions.
  const int parts = static_cast<int>(std::clamp<int64_t>(rows / (64 * 1024), 1, 16));
  return std::make_shared<TableSource>(Table(result_, {groups.rows}), parts,
                                       keys_.empty() ? "Aggregate" : "GroupBy");
}

std::shared_ptr<const Source> GroupBySink::finalize_shares(GlobalSinkState& global,
                                                           std::vector<Batch> others) const {
  // This rank's share, finalized as finalize() would, is one sorted input; each other rank's
  // finalized share (in key order too) is another; a key lives in one share only, so the
  // merge puts every group once, in key order.
  std::vector<TaggedRun> runs = key_runs(global);
  for (Batch& b : others) runs.push_back({static_cast<int64_t>(runs.size()), std::move(b)});
  return merge_key_ordered(result_, *range_keys(), std::move(runs), "GroupBy");
}

std::optional<RangeKeys> GroupBySink::range_keys() const {
  if (keys_.empty()) return std::nullopt;
  RangeKeys keys;
  for (size_t k = 0; k < keys_.size(); ++k) keys.columns.push_back(static_cast<int>(k));
  keys.order.assign(keys_.size(), KeyOrder{});
  return keys;
}

std::vector<TaggedRun> GroupBySink::key_runs(GlobalSinkState& global) const {
  std::vector<TaggedRun> runs;
  runs.push_back({0, read_whole(*finalize(global))});
  return runs;
}

}  // namespace ember
