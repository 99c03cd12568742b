// open_partition_writer: picks the format writer and the part file's name.
#include "io/output/partition_writer.h"

#include <cstdio>

#include "ember/error.h"
#include "io/csv/csv_writer.h"
#include "io/jsonl/jsonl_writer.h"

namespace ember {

std::unique_ptr<PartitionWriter> open_partition_writer(const std::string& dir, int partition,
                                                       const Schema& schema, FileFormat format) {
  if (partition < 0) throw InvalidArgument("partition numbers start at 0");
  char name[32];
  std::snprintf(name, sizeof name, "part-%05d.%s", partition,
                format == FileFormat::Csv ? "csv" : "jsonl");
  if (format == FileFormat::Csv) return std::make_unique<CsvWriter>(dir, name, schema);
  return std::make_unique<JsonlWriter>(dir, name, schema);
}

}  // namespace ember
