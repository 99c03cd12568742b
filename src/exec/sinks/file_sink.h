// A sink that writes each partition to its own file in a directory.
#pragma once

#include <atomic>
#include <string>

#include "exec/sink.h"
#include "io/partition_writer.h"

namespace ember {

/// Writes partition p to `part-<p>.<ext>` in `dir`, the query's staging directory. Counts the
/// parts written so that the query commits only a complete set.
class FileSink : public Sink {
 public:
  FileSink(std::string dir, Schema schema, FileFormat format)
      : dir_(std::move(dir)), schema_(std::move(schema)), format_(format) {}
  std::unique_ptr<PartitionSink> open(int partition) override;
  /// Parts whose file is complete. Read once the pipeline has ended.
  int parts_written() const { return parts_written_.load(std::memory_order_acquire); }

 private:
  std::string dir_;
  Schema schema_;
  FileFormat format_;
  std::atomic<int> parts_written_{0};
};

}  // namespace ember
