// Collecting a query's rows into one table.
#include "exec/sinks/collect_sink.h"

#include "exec/sinks/collected_partitions.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> CollectSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, limit_);
}

std::unique_ptr<LocalSinkState> CollectSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void CollectSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void CollectSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

bool CollectSink::full(const LocalSinkState& local) const {
  return limit_ >= 0 && local.as<Part>().rows >= limit_;
}

bool CollectSink::satisfied(const GlobalSinkState& global) const {
  return global.as<CollectedPartitions>().satisfied();
}

Table CollectSink::finalize(GlobalSinkState& global) const {
  return Table(schema_, global.as<CollectedPartitions>().take_all());
}

}  // namespace ember
