// Where a BatchDecoder's field nodes and buffers come from: an Arrow IPC record batch (its
// FlatBuffers metadata over a body, compressed or not) or the arrays of the Arrow C Data
// Interface (arrow_c_import.h). Both hand them out depth first: a field's node and buffers, then
// its children's.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ember/column.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_body_codec.h"

namespace ember::arrow_ipc {

/// One field node: the rows its buffers hold (`offset` + the rows it has), its null count over
/// those rows (-1: unknown, counted from the validity) and the first row it has (always 0 in
/// IPC; the C Data Interface's `offset`).
struct NodeInfo {
  int64_t rows = 0;
  int64_t null_count = 0;
  int64_t offset = 0;
};

/// Field nodes and buffers in the order of the Arrow IPC format. Errors are std::runtime_error;
/// the decoder's caller names the file or stream.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  /// The next field's node.
  virtual NodeInfo node() = 0;
  /// The current node's next buffer and its size in bytes ({nullptr, 0} for an absent one).
  virtual std::pair<const uint8_t*, int64_t> buffer() = 0;
  /// How many variadic data buffers the current view column (called `column`) has; they follow
  /// its views buffer.
  virtual int64_t variadic_count(const std::string& column) = 0;
  /// The `size` bytes at `data` (inside a buffer this source handed out) as a Buffer that
  /// borrows them, when the source can lend them in ember's layout; nullptr, and the decoder
  /// copies them.
  virtual std::shared_ptr<Buffer> lend(const uint8_t* /*data*/, int64_t /*size*/) {
    return nullptr;
  }
};

/// The nodes and buffers of an IPC record batch, every range checked against the body and
/// compressed buffers inflated.
class IpcBatchSource final : public BatchSource {
 public:
  IpcBatchSource(const org::apache::arrow::flatbuf::RecordBatch* rb, const uint8_t* body,
                 int64_t body_size);
  NodeInfo node() override;
  std::pair<const uint8_t*, int64_t> buffer() override;
  int64_t variadic_count(const std::string& column) override;

 private:
  const org::apache::arrow::flatbuf::RecordBatch* rb_;
  const uint8_t* body_;
  int64_t body_size_;
  std::optional<BodyCodec> codec_;
  std::deque<std::string> decoded_;  ///< decompressed buffers (stable addresses)
  flatbuffers::uoffset_t node_ = 0, buffer_ = 0;
  flatbuffers::uoffset_t variadic_ = 0;  ///< the next view column's variadicBufferCounts entry
};

}  // namespace ember::arrow_ipc
