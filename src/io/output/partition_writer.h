// Writing one partition to one output file, atomically. The directory is a query's staging
// directory (see staged_output.h); the whole set becomes visible at once when the query commits.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ember/arrow_options.h"
#include "ember/batch.h"
#include "ember/parquet_options.h"

namespace ember {

/// ArrowStream: the Arrow IPC stream format (ArrowWriteOptions::stream).
enum class FileFormat { Csv, Jsonl, Parquet, Arrow, ArrowStream };

/// The extension of a format's part files, without the dot: "csv", "jsonl", "parquet", "arrow",
/// "arrows".
std::string_view file_extension(FileFormat format);

/// The name of partition `partition`'s file: `part-NNNNN.<ext>` (five digits or more).
std::string part_file_name(int partition, FileFormat format);

/// The name of piece `piece` of partition `partition`'s output, for a resumable write that
/// checkpoints inside partitions: `part-NNNNN-CCCCC.<ext>`, so that names sort in row order.
std::string piece_file_name(int partition, int piece, FileFormat format);

/// True for the name of a part file of any format, `part-*.<ext>`: a new format's parts then
/// count as ember's own in an output directory (see is_output_file_name) with no other change.
bool is_part_file_name(std::string_view name);

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

/// InvalidArgument, naming the column, when `format` cannot hold one of the schema's types.
void check_format_holds(const Schema& schema, FileFormat format);

/// The settings of the formats that have some; each applies to its format only.
struct FileWriteOptions {
  ParquetWriteOptions parquet;
  ArrowWriteOptions arrow;
};

/// Opens the writer of partition `partition` (file `part-NNNNN.<ext>`, five digits or more).
/// Throws IoError when the temp file cannot be created.
std::unique_ptr<PartitionWriter> open_partition_writer(const std::string& dir, int partition,
                                                       const Schema& schema, FileFormat format,
                                                       const FileWriteOptions& options = {});

/// The same, for the file `name` (a part_file_name or a piece_file_name).
std::unique_ptr<PartitionWriter> open_part_writer(const std::string& dir, const std::string& name,
                                                  const Schema& schema, FileFormat format,
                                                  const FileWriteOptions& options = {});

}  // namespace ember
