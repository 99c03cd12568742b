// An IPC record batch as a BatchSource; see arrow_batch_source.h.
#include "io/arrow/arrow_batch_source.h"

#include <cstring>
#include <stdexcept>

#include "io/arrow/flatbuffer_copy.h"

namespace ember::arrow_ipc {

namespace fb = org::apache::arrow::flatbuf;

IpcBatchSource::IpcBatchSource(const fb::RecordBatch* rb, const uint8_t* body, int64_t body_size)
    : rb_(rb), body_(body), body_size_(body_size) {
  if (const fb::BodyCompression* c = rb->compression()) {
    if (c->codec() != fb::CompressionType::LZ4_FRAME && c->codec() != fb::CompressionType::ZSTD)
      throw std::runtime_error("an unknown body compression");
    codec_ = c->codec() == fb::CompressionType::ZSTD ? BodyCodec::Zstd : BodyCodec::Lz4Frame;
  }
}

NodeInfo IpcBatchSource::node() {
  if (!rb_->nodes() || node_ >= rb_->nodes()->size())
    throw std::runtime_error("too few field nodes");
  const fb::FieldNode node = unaligned(rb_->nodes()->Get(node_++));
  const int64_t n = node.length(), nulls = node.null_count();
  if (n < 0 || nulls < 0 || nulls > n || n > (int64_t{1} << 40))
    throw std::runtime_error("bad field node");
  // As for a record batch's length: past 2^24 rows a node must have at least a bit per row in
  // the body, so that a corrupt length (of a dictionary batch, a list's items, a zero-width
  // binary) cannot make the decoder allocate for rows that are not there.
  if (n > (int64_t{1} << 24) && n / 8 > body_size_)
    throw std::runtime_error("a field node of " + std::to_string(n) + " rows in a body of " +
                             std::to_string(body_size_) + " bytes");
  return {n, nulls, 0};
}

std::pair<const uint8_t*, int64_t> IpcBatchSource::buffer() {
  if (!rb_->buffers() || buffer_ >= rb_->buffers()->size())
    throw std::runtime_error("too few buffers");
  const fb::Buffer b = unaligned(rb_->buffers()->Get(buffer_++));
  if (b.offset() < 0 || b.length() < 0 || b.offset() > body_size_ ||
      b.length() > body_size_ - b.offset())
    throw std::runtime_error("a buffer lies outside the record batch body");
  if (!codec_) return {body_ + b.offset(), b.length()};
  // A compressed body: the buffer's bytes decoded once and kept while the batch decodes.
  const std::string_view stored(reinterpret_cast<const char*>(body_ + b.offset()),
                                static_cast<size_t>(b.length()));
  decoded_.push_back(decompress_buffer(*codec_, stored, int64_t{1} << 31));
  return {reinterpret_cast<const uint8_t*>(decoded_.back().data()),
          static_cast<int64_t>(decoded_.back().size())};
}

int64_t IpcBatchSource::variadic_count(const std::string& column) {
  const auto* counts = rb_->variadicBufferCounts();
  if (!counts || variadic_ >= counts->size())
    throw std::runtime_error("column '" + column + "': no variadic buffer count for its views");
  // A vector's elements are verified only to the alignment of its length: read byte-wise.
  int64_t count;
  std::memcpy(&count, counts->Data() + sizeof(int64_t) * variadic_++, sizeof count);
  if (count < 0 || !rb_->buffers() || count > int64_t{rb_->buffers()->size()} - buffer_)
    throw std::runtime_error("column '" + column + "': " + std::to_string(count) +
                             " variadic buffers, past the batch's buffers");
  return count;
}

}  // namespace ember::arrow_ipc
