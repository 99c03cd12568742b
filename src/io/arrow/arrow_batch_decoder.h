// Rebuilding ember columns from one Arrow record (or dictionary) batch: its field nodes and
// buffers (an IPC batch's, or C Data Interface arrays'), every offset and length checked.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "ember/column.h"
#include "io/arrow/arrow_batch_source.h"
#include "io/arrow/arrow_field.h"

namespace ember::arrow_ipc {

/// The dictionaries of a file by id, as its dictionary batches build them.
using Dictionaries = std::map<int64_t, Column>;

/// Decodes the columns of one batch in schema order: call column() once per top-level field.
/// Throws std::runtime_error for a corrupt batch (the caller names the file and the batch).
class BatchDecoder {
 public:
  /// An IPC record batch over `body`. `dictionaries` serves the dictionary-encoded fields
  /// (none when null).
  BatchDecoder(const org::apache::arrow::flatbuf::RecordBatch* rb, const uint8_t* body,
               int64_t body_size, const Dictionaries* dictionaries = nullptr);
  /// The nodes and buffers of `source`, which outlives the decoder.
  explicit BatchDecoder(BatchSource& source, const Dictionaries* dictionaries = nullptr);

  /// The next field's column (its children's nodes and buffers consumed with it).
  Column column(const ArrowField& f);

 private:
  std::pair<const uint8_t*, int64_t> buffer() { return source_->buffer(); }
  /// `size` bytes of a buffer as the column's: lent by the source when it can, else copied.
  std::shared_ptr<Buffer> take(const uint8_t* p, int64_t size);
  Column values(const ArrowField& f, int64_t n, int64_t nulls);
  Column decoded(const ArrowField& f, int64_t n, const std::shared_ptr<Buffer>& validity);
  Column fields(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column integers(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column scaled(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column halves(int64_t n, std::shared_ptr<Buffer> validity);
  Column decimals(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column fixed_binary(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column large(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  // The view types (arrow_view_decoder.cpp).
  Column views(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  Column list_views(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity);
  std::shared_ptr<Buffer> checked_offsets(int64_t n);

  std::unique_ptr<BatchSource> owned_;  ///< the IPC batch's source
  BatchSource* source_;
  const Dictionaries* dictionaries_;
};

}  // namespace ember::arrow_ipc
