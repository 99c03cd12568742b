// The output sink of a query that writes files: one file per partition in a directory.
#pragma once

#include <string>

#include "exec/output_sink.h"
#include "io/output/partition_writer.h"

namespace ember {

/// Writes partition p to `part-<p>.<ext>` in `dir`, the query's staging directory; a part is
/// committed (renamed into place) when its partition ends. finalize() throws unless every
/// partition's part was written, so that the query commits only a complete set.
class FileSink final : public OutputSink {
 public:
  /// InvalidArgument, before any work runs, when the format cannot hold a column's type.
  FileSink(std::string dir, Schema schema, FileFormat format, ParquetWriteOptions parquet = {})
      : dir_(std::move(dir)), schema_(std::move(schema)), format_(format), parquet_(parquet) {
    check_format_holds(schema_, format_);
  }
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// One partition's part was written and committed into the directory by another rank (the
  /// MPI runner): it counts as written here.
  void adopt_part(GlobalSinkState& global) const;
  /// The bytes of the parts committed here (not those adopted).
  int64_t bytes_written(const GlobalSinkState& global) const override;
  /// A table with no rows.
  Table finalize(GlobalSinkState& global) const override;

 private:
  std::string dir_;
  Schema schema_;
  FileFormat format_;
  ParquetWriteOptions parquet_;
};

}  // namespace ember
