// Writing one partition to one output file, atomically.
#pragma once

#include <memory>
#include <string>

#include "ember/batch.h"

namespace ember {

enum class FileFormat { Csv, Jsonl };

/// Writes batches to `<dir>/.part-NNNNN.<ext>.tmp`; commit() renames it to `part-NNNNN.<ext>`.
/// Destroying an uncommitted writer removes the temp file. Throws IoError (disk full, no
/// permission) naming the file.
class PartitionWriter {
 public:
  virtual ~PartitionWriter() = default;
  virtual void write(const Batch& batch) = 0;
  /// Flushes, fsyncs and renames into place. Called once.
  virtual void commit() = 0;
};

/// Creates `dir` if needed and checks it is writable; removes stale part files of `format`.
void prepare_output_dir(const std::string& dir, FileFormat format);
std::unique_ptr<PartitionWriter> open_partition_writer(const std::string& dir, int partition,
                                                       const Schema& schema, FileFormat format);

}  // namespace ember
