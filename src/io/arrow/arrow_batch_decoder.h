// Rebuilding ember columns from one Arrow IPC record (or dictionary) batch: its field nodes
// and buffers, every range and offset checked against the body, compressed buffers inflated.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ember/column.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_body_codec.h"
#include "io/arrow/arrow_field.h"

namespace ember::arrow_ipc {

/// The dictionaries of a file by id, as its dictionary batches build them.
using Dictionaries = std::map<int64_t, Column>;

/// Decodes the columns of one batch in schema order: call column() once per top-level field.
/// Throws std::runtime_error for a corrupt batch (the caller names the file and the batch).
class BatchDecoder {
 public:
  /// `dictionaries` serves the dictionary-encoded fields (none when null).
  BatchDecoder(const org::apache::arrow::flatbuf::RecordBatch* rb, const uint8_t* body,
               int64_t body_size, const Dictionaries* dictionaries = nullptr);

  /// The next field's column (its children's nodes and buffers consumed with it).
  Column column(const ArrowField& f);

 private:
  std::pair<const uint8_t*, int64_t> buffer();
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

  const org::apache::arrow::flatbuf::RecordBatch* rb_;
  const uint8_t* body_;
  int64_t body_size_;
  const Dictionaries* dictionaries_;
  std::optional<BodyCodec> codec_;
  std::deque<std::string> decoded_;  ///< decompressed buffers (stable addresses)
  flatbuffers::uoffset_t node_ = 0, buffer_ = 0;
  flatbuffers::uoffset_t variadic_ = 0;  ///< the next view column's variadicBufferCounts entry
};

}  // namespace ember::arrow_ipc
