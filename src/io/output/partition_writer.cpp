// Part files: their names, and open_partition_writer, which picks the format's writer.
#include "io/output/partition_writer.h"

#include <cstdio>

#include "ember/error.h"
#include "io/arrow/arrow_writer.h"
#include "io/csv/csv_writer.h"
#include "io/jsonl/jsonl_writer.h"
#include "io/parquet/parquet_writer.h"

namespace ember {
namespace {

constexpr FileFormat kFileFormats[] = {FileFormat::Csv, FileFormat::Jsonl, FileFormat::Parquet,
                                       FileFormat::Arrow, FileFormat::ArrowStream};

}  // namespace

std::string_view file_extension(FileFormat format) {
  switch (format) {
    case FileFormat::Csv:
      return "csv";
    case FileFormat::Jsonl:
      return "jsonl";
    case FileFormat::Parquet:
      return "parquet";
    case FileFormat::ArrowStream:
      return "arrows";
    default:
      return "arrow";
  }
}

std::string part_file_name(int partition, FileFormat format) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05d.", partition);
  return name + std::string(file_extension(format));
}

std::string piece_file_name(int partition, int piece, FileFormat format) {
  char name[48];
  std::snprintf(name, sizeof name, "part-%05d-%05d.", partition, piece);
  return name + std::string(file_extension(format));
}

bool is_part_file_name(std::string_view name) {
  if (!name.starts_with("part-")) return false;
  for (const FileFormat format : kFileFormats) {
    const std::string_view ext = file_extension(format);
    if (name.ends_with(ext) && name.substr(0, name.size() - ext.size()).ends_with('.')) return true;
  }
  return false;
}

void check_format_holds(const Schema& schema, FileFormat format) {
  if (format == FileFormat::Csv) check_csv_schema(schema);
  if (format == FileFormat::Parquet) check_parquet_schema(schema);
  if (format == FileFormat::Arrow || format == FileFormat::ArrowStream) check_arrow_schema(schema);
}

std::unique_ptr<PartitionWriter> open_partition_writer(const std::string& dir, int partition,
                                                       const Schema& schema, FileFormat format,
                                                       const FileWriteOptions& options) {
  if (partition < 0) throw InvalidArgument("partition numbers start at 0");
  return open_part_writer(dir, part_file_name(partition, format), schema, format, options);
}

std::unique_ptr<PartitionWriter> open_part_writer(const std::string& dir, const std::string& name,
                                                  const Schema& schema, FileFormat format,
                                                  const FileWriteOptions& options) {
  if (format == FileFormat::Csv) return std::make_unique<CsvWriter>(dir, name, schema);
  if (format == FileFormat::Parquet)
    return std::make_unique<ParquetWriter>(dir, name, schema, options.parquet);
  if (format == FileFormat::Arrow || format == FileFormat::ArrowStream) {
    ArrowWriteOptions arrow = options.arrow;  // the format says which (it travels to ranks)
    arrow.stream = format == FileFormat::ArrowStream;
    return std::make_unique<ArrowWriter>(dir, name, schema, arrow);
  }
  return std::make_unique<JsonlWriter>(dir, name, schema);
}

}  // namespace ember
