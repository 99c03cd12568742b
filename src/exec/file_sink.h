// A sink that writes each partition to its own file in a directory.
#pragma once

#include <string>

#include "exec/sink.h"
#include "io/partition_writer.h"

namespace ember {

class FileSink : public Sink {
 public:
  FileSink(std::string dir, Schema schema, FileFormat format)
      : dir_(std::move(dir)), schema_(std::move(schema)), format_(format) {}
  std::unique_ptr<PartitionSink> open(int partition) override;

 private:
  std::string dir_;
  Schema schema_;
  FileFormat format_;
};

}  // namespace ember
