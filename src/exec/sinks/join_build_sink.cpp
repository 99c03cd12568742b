// Join build: rows gathered per partition, concatenated in partition order, then indexed.
#include "exec/sinks/join_build_sink.h"

#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> JoinBuildSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, -1);
}

std::unique_ptr<LocalSinkState> JoinBuildSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void JoinBuildSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void JoinBuildSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

std::shared_ptr<const Source> JoinBuildSink::finalize(GlobalSinkState& global) const {
  std::vector<Batch> parts = global.as<CollectedPartitions>().take_all();
  if (parts.empty()) {
    std::vector<Column> empty;
    for (const Field& f : schema_.fields()) empty.push_back(Column::nulls(f.type, 0));
    table_->build(Batch(schema_, std::move(empty)));
  } else {
    table_->build(Batch::concat(parts));
  }
  return std::make_shared<TableSource>(schema_, std::vector<std::vector<Batch>>{}, "JoinBuild");
}

}  // namespace ember
