// Writing one partition as one Arrow IPC file (the "file format": magic, schema, record
// batches, footer; or the stream format: schema and record batches to an end-of-stream
// marker), so that pyarrow, polars and DuckDB users open it without conversion.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/arrow_options.h"
#include "io/arrow/arrow_body_codec.h"
#include "io/output/atomic_file.h"
#include "io/output/partition_writer.h"

namespace ember {

/// InvalidArgument naming the first column Arrow IPC output cannot hold (the Null type).
void check_arrow_schema(const Schema& schema);

class ArrowWriter final : public PartitionWriter {
 public:
  ArrowWriter(const std::string& dir, const std::string& name, const Schema& schema,
              const ArrowWriteOptions& options = {});
  ~ArrowWriter() override;
  /// Each batch becomes one record batch.
  void write(const Batch& batch) override;
  void commit() override;

 private:
  struct Blocks;
  AtomicFile file_;
  Schema schema_;
  std::optional<arrow_ipc::BodyCodec> codec_;  ///< compressed bodies; none when unset
  int64_t offset_ = 0;
  bool stream_ = false;  ///< the stream format: no magic, no footer
  std::unique_ptr<Blocks> blocks_;
};

}  // namespace ember
