// Writing batches as RFC-4180 CSV.
#pragma once

#include <string>

#include "io/output/atomic_file.h"
#include "io/output/partition_writer.h"

namespace ember {

/// One CSV output file: a header row, then one line per row. Fields are quoted only when needed
/// (a delimiter, quote, \r or \n inside, or a leading/trailing space); a null is an empty field
/// and an empty string is `""`; floats are written in shortest round-trip form, booleans as
/// true/false. Output is gathered in a large buffer and written in big blocks.
/// InvalidArgument naming the first column CSV cannot hold (lists, binary).
void check_csv_schema(const Schema& schema);

class CsvWriter final : public PartitionWriter {
 public:
  CsvWriter(const std::string& dir, const std::string& name, const Schema& schema);
  /// Throws IoError on a write failure; InvalidArgument when the batch's schema differs.
  void write(const Batch& batch) override;
  /// Flushes, fsyncs and renames into place. Throws IoError.
  void commit() override;

 private:
  void append_row(const Batch& batch, int64_t row);
  void append_text(std::string_view s);
  void flush_if_full();

  AtomicFile file_;
  Schema schema_;
  std::string out_;
};

}  // namespace ember
