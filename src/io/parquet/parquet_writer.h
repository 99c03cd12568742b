// Writing one partition as one Parquet file: row groups of a configured size, dictionary pages
// for low-cardinality strings, PLAIN for the rest, min/max statistics and null counts, and the
// chosen codec; structs, lists and maps nest to any depth. The file appears (atomically) when
// committed.
#pragma once

#include <string>
#include <vector>

#include "ember/parquet_options.h"
#include "io/output/atomic_file.h"
#include "io/output/partition_writer.h"
#include "io/parquet/parquet_write_schema.h"

namespace ember {

/// InvalidArgument naming the first column Parquet cannot hold (the Null type anywhere in it, a
/// struct without fields).
void check_parquet_schema(const Schema& schema);

class ParquetWriter final : public PartitionWriter {
 public:
  ParquetWriter(const std::string& dir, const std::string& name, const Schema& schema,
                ParquetWriteOptions options);
  void write(const Batch& batch) override;
  void commit() override;

 private:
  void flush_row_group();

  AtomicFile file_;
  Schema schema_;
  ParquetWriteOptions options_;
  std::vector<std::vector<Column>> pending_;  ///< per column, the parts of the open row group
  std::vector<std::vector<parquet::WriteLeaf>> leaves_;  ///< per column, its leaves
  int64_t pending_rows_ = 0;
  int64_t offset_ = 0;  ///< bytes written so far
  std::string chunk_;   ///< the column chunk being built, its room kept for the next
  struct Footer;
  std::shared_ptr<Footer> footer_;
};

}  // namespace ember
