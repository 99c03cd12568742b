// Right/full join tail: the probe output unchanged, plus the unmatched build rows.
#include "exec/sinks/join_tail_sink.h"

#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> JoinTailSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, -1);
}

std::unique_ptr<LocalSinkState> JoinTailSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void JoinTailSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void JoinTailSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

std::shared_ptr<const Source> JoinTailSink::finalize(GlobalSinkState& global) const {
  std::vector<std::vector<Batch>> parts = global.as<CollectedPartitions>().take();
  parts.push_back({unmatched_build_rows(*table_, layout_)});
  return std::make_shared<TableSource>(layout_.output, std::move(parts), "JoinUnmatched");
}

}  // namespace ember
