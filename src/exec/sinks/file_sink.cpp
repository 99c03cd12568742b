// Each partition streams into one writer, committed (renamed into place) when it finishes.
#include "exec/sinks/file_sink.h"

#include <atomic>

#include "ember/error.h"

namespace ember {

namespace {

struct PartsWritten final : GlobalSinkState {
  explicit PartsWritten(int n) : num_partitions(n) {}
  int num_partitions;
  std::atomic<int> parts{0};
};

struct PartWriter final : LocalSinkState {
  explicit PartWriter(std::unique_ptr<PartitionWriter> w) : writer(std::move(w)) {}
  std::unique_ptr<PartitionWriter> writer;
};

}  // namespace

std::unique_ptr<GlobalSinkState> FileSink::global_state(int num_partitions) const {
  return std::make_unique<PartsWritten>(num_partitions);
}

std::unique_ptr<LocalSinkState> FileSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartWriter>(
      open_partition_writer(dir_, partition, schema_, format_, parquet_));
}

void FileSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  local.as<PartWriter>().writer->write(batch);
}

void FileSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  local.as<PartWriter>().writer->commit();
  global.as<PartsWritten>().parts.fetch_add(1, std::memory_order_release);
}

void FileSink::adopt_part(GlobalSinkState& global) const {
  global.as<PartsWritten>().parts.fetch_add(1, std::memory_order_release);
}

Table FileSink::finalize(GlobalSinkState& global) const {
  const auto& written = global.as<PartsWritten>();
  const int parts = written.parts.load(std::memory_order_acquire);
  // Broken invariant: the pipeline ended without an error but some partition never finished.
  if (parts != written.num_partitions)
    throw Error("internal: only " + std::to_string(parts) + " of " +
                std::to_string(written.num_partitions) +
                " output files were written; the output directory is left as it was");
  return Table(schema_, {});
}

}  // namespace ember
