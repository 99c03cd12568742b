// A limit between pipelines.
#include "exec/sinks/limit_sink.h"

#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> LimitSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, limit_);
}

std::unique_ptr<LocalSinkState> LimitSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void LimitSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void LimitSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

bool LimitSink::full(const LocalSinkState& local) const { return local.as<Part>().rows >= limit_; }

bool LimitSink::satisfied(const GlobalSinkState& global) const {
  return global.as<CollectedPartitions>().satisfied();
}

std::shared_ptr<const Source> LimitSink::finalize(GlobalSinkState& global) const {
  return std::make_shared<TableSource>(schema_, global.as<CollectedPartitions>().take(),
                                       "Limit " + std::to_string(limit_));
}

}  // namespace ember
