// A repartition between pipelines.
#include "exec/sinks/repartition_sink.h"

#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> RepartitionSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, -1);
}

std::unique_ptr<LocalSinkState> RepartitionSink::local_state(GlobalSinkState&,
                                                             int partition) const {
  return std::make_unique<Part>(partition);
}

void RepartitionSink::sink(GlobalSinkState& global, LocalSinkState& local,
                           const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void RepartitionSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

std::shared_ptr<const Source> RepartitionSink::finalize(GlobalSinkState& global) const {
  Table all(schema_, global.as<CollectedPartitions>().take_all());
  return std::make_shared<TableSource>(all, num_partitions_, "Repartition");
}

}  // namespace ember
