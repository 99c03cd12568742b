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
  /// Appends the batch's rows (its schema must be the writer's). Called by one thread at a time.
  virtual void write(const Batch& batch) = 0;
  /// Flushes, fsyncs and renames into place. Called once.
  virtual void commit() = 0;
};

/// Creates `dir` if needed and checks it is writable; removes stale part files of `format`
/// (`part-*.<ext>` and leftover `.part-*.<ext>.tmp`) so a rerun does not mix outputs. Call once,
/// before any writer of the query is opened. Throws IoError.
void prepare_output_dir(const std::string& dir, FileFormat format);
/// Opens the writer of partition `partition` (file `part-NNNNN.<ext>`, five digits or more).
/// Throws IoError when the temp file cannot be created.
std::unique_ptr<PartitionWriter> open_partition_writer(const std::string& dir, int partition,
                                                       const Schema& schema, FileFormat format);

}  // namespace ember
