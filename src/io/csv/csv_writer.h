// Writing batches as RFC-4180 CSV.
#pragma once

#include <memory>
#include <string>
#include <string_view>

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
  /// Room for `bytes` more characters at the end of the buffer: flushes it first when they do
  /// not fit, and grows it for a field bigger than the whole buffer.
  char* room(size_t bytes);
  /// Marks the buffer filled up to `end` (a pointer into the room just asked for).
  void filled(const char* end) { used_ = static_cast<size_t>(end - buffer_.get()); }
  void put(char c) {
    *room(1) = c;
    ++used_;
  }
  void append_text(std::string_view s);
  void append_field(const Column& col, int64_t row);
  void flush();

  AtomicFile file_;
  Schema schema_;
  std::unique_ptr<char[]> buffer_;  ///< output gathered here and written in big blocks
  size_t capacity_;
  size_t used_ = 0;
};

}  // namespace ember
