// Join build: rows gathered per partition, concatenated in partition order, then indexed; or,
// past the budget, split into the spill's partitions.
#include "exec/sinks/join_build_sink.h"

#include <mutex>

#include "exec/sources/table_source.h"

namespace ember {

namespace {

/// The build rows so far, per partition, while they fit the budget.
struct BuildRows final : GlobalSinkState {
  explicit BuildRows(int partitions) : parts(static_cast<size_t>(partitions)) {}
  std::mutex mu;
  std::vector<std::vector<Batch>> parts;
  int64_t bytes = 0;
  bool spilled = false;
};

struct PartitionIndex final : LocalSinkState {
  explicit PartitionIndex(int p) : index(p) {}
  int index;
};

}  // namespace

std::unique_ptr<GlobalSinkState> JoinBuildSink::global_state(int num_partitions) const {
  spill_->reset();
  return std::make_unique<BuildRows>(num_partitions);
}

std::unique_ptr<LocalSinkState> JoinBuildSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartitionIndex>(partition);
}

void JoinBuildSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  auto& rows = global.as<BuildRows>();
  std::vector<std::vector<Batch>> moving;
  {
    std::lock_guard<std::mutex> lock(rows.mu);
    if (!rows.spilled) {
      rows.parts[static_cast<size_t>(local.as<PartitionIndex>().index)].push_back(batch);
      rows.bytes += batch.byte_size();
      if (rows.memory_budget_bytes <= 0 || rows.bytes <= rows.memory_budget_bytes) return;
      // Past the budget: from here on every batch goes to disk, these first.
      rows.spilled = true;
      spill_->start(rows.memory_budget_bytes);
      moving.swap(rows.parts);
    }
  }
  for (auto& part : moving)
    for (Batch& b : part) {
      spill_->write_build(b);
      b = Batch();  // its memory goes as it is written
    }
  if (moving.empty()) spill_->write_build(batch);
}

void JoinBuildSink::combine(GlobalSinkState&, LocalSinkState&) const {}

std::shared_ptr<const Source> JoinBuildSink::finalize(GlobalSinkState& global) const {
  auto& rows = global.as<BuildRows>();
  std::vector<Batch> parts;
  for (auto& part : rows.parts)
    for (Batch& b : part) parts.push_back(std::move(b));
  if (parts.empty()) {  // no rows, or all of them spilled
    std::vector<Column> empty;
    for (const Field& f : schema_.fields()) empty.push_back(Column::nulls(f.type, 0));
    table_->build(Batch(schema_, std::move(empty)));
  } else {
    table_->build(Batch::concat(parts));
  }
  return std::make_shared<TableSource>(schema_, std::vector<std::vector<Batch>>{}, "JoinBuild");
}

}  // namespace ember
