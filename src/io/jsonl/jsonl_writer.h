// Writing batches as JSON lines.
#pragma once

#include <string>
#include <vector>

#include "io/output/atomic_file.h"
#include "io/output/partition_writer.h"

namespace ember {

/// One JSON-lines output file: one object per row, keys in schema order. Strings are escaped
/// (quote, backslash, control characters as \u00XX); nulls and non-finite floats are `null`;
/// floats in shortest round-trip form. Output is gathered in a large buffer.
class JsonlWriter final : public PartitionWriter {
 public:
  JsonlWriter(const std::string& dir, const std::string& name, const Schema& schema);
  /// Throws IoError on a write failure; InvalidArgument when the batch's schema differs.
  void write(const Batch& batch) override;
  /// Flushes, fsyncs and renames into place. Throws IoError.
  void commit() override;

 private:
  void append_row(const Batch& batch, int64_t row);

  AtomicFile file_;
  Schema schema_;
  std::vector<std::string> key_prefixes_;  ///< `{"name":` / `,"name":`, escaped once
  std::string out_;
};

}  // namespace ember
