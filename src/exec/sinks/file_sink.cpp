// Each partition streams into one writer, committed (renamed into place) when it finishes.
#include "exec/sinks/file_sink.h"

#include <atomic>
#include <filesystem>
#include <system_error>

#include "ember/error.h"

namespace ember {

namespace {

struct PartsWritten final : GlobalSinkState {
  explicit PartsWritten(int n) : num_partitions(n) {}
  int num_partitions;
  std::atomic<int> parts{0};
  std::atomic<int64_t> bytes{0};  ///< of the parts committed here
};

struct PartWriter final : LocalSinkState {
  PartWriter(std::unique_ptr<PartitionWriter> w, std::string p)
      : writer(std::move(w)), path(std::move(p)) {}
  std::unique_ptr<PartitionWriter> writer;
  std::string path;  ///< the part's file once committed
};

}  // namespace

std::unique_ptr<GlobalSinkState> FileSink::global_state(int num_partitions) const {
  return std::make_unique<PartsWritten>(num_partitions);
}

std::unique_ptr<LocalSinkState> FileSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartWriter>(
      open_partition_writer(dir_, partition, schema_, format_, parquet_),
      (std::filesystem::path(dir_) / part_file_name(partition, format_)).string());
}

void FileSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  local.as<PartWriter>().writer->write(batch);
}

void FileSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& part = local.as<PartWriter>();
  part.writer->commit();
  std::error_code ec;  // the part is in place: its size is only counted
  const auto size = std::filesystem::file_size(part.path, ec);
  auto& written = global.as<PartsWritten>();
  if (!ec) written.bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  written.parts.fetch_add(1, std::memory_order_release);
}

void FileSink::adopt_part(GlobalSinkState& global) const {
  global.as<PartsWritten>().parts.fetch_add(1, std::memory_order_release);
}

int64_t FileSink::bytes_written(const GlobalSinkState& global) const {
  return global.as<PartsWritten>().bytes.load(std::memory_order_relaxed);
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
