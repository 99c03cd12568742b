// Walking an Arrow IPC stream's messages; see arrow_stream_index.h.
#include "io/arrow/arrow_stream_index.h"

#include <cstring>
#include <stdexcept>

#include "io/arrow/Message_generated.h"
#include "io/arrow/flatbuffer_copy.h"

namespace ember::arrow_ipc {

namespace fb = org::apache::arrow::flatbuf;

bool looks_like_stream(const std::string& head) {
  if (head.size() < 8 || head.compare(0, 6, "ARROW1") == 0) return false;
  uint32_t marker;
  std::memcpy(&marker, head.data(), 4);
  int32_t len;
  std::memcpy(&len, head.data() + (marker == 0xFFFFFFFFu ? 4 : 0), 4);
  return len > 0;
}

StreamIndex index_stream(const ReadBytes& read, int64_t size) {
  StreamIndex index;
  int64_t at = 0;
  bool schema = false;
  while (at + 4 <= size) {
    const std::string prefix_bytes = read(at, std::min<int64_t>(8, size - at), "a message");
    uint32_t marker;
    std::memcpy(&marker, prefix_bytes.data(), 4);
    int prefix = 4;
    int32_t len = static_cast<int32_t>(marker);  // an old writer's prefix: the length alone
    if (marker == 0xFFFFFFFFu) {
      if (prefix_bytes.size() < 8) throw std::runtime_error("a message prefix cut short");
      prefix = 8;
      std::memcpy(&len, prefix_bytes.data() + 4, 4);
    }
    if (len == 0) break;  // end of stream
    if (len < 0 || len > size - at - prefix)
      throw std::runtime_error("a message of " + std::to_string(len) + " bytes at offset " +
                               std::to_string(at) + " runs past the end of the stream");
    const std::string meta_bytes = read(at + prefix, len, "a message");
    const AlignedCopy meta(meta_bytes.data(), meta_bytes.size());
    flatbuffers::Verifier v(meta.data(), meta_bytes.size());
    if (!fb::VerifyMessageBuffer(v))
      throw std::runtime_error("corrupt message metadata at offset " + std::to_string(at));
    const fb::Message* m = fb::GetMessage(meta.data());
    const int64_t body = m->bodyLength();
    const int64_t meta_length = prefix + len;
    if (body < 0 || body > size - at - meta_length)
      throw std::runtime_error("a message body at offset " + std::to_string(at) +
                               " runs past the end of the stream");
    const fb::Block block(at, static_cast<int32_t>(meta_length), body);
    switch (m->header_type()) {
      case fb::MessageHeader::Schema:
        if (schema) throw std::runtime_error("a second schema message");
        schema = true;
        index.schema_message = meta_bytes;
        break;
      case fb::MessageHeader::DictionaryBatch:
        if (!schema) throw std::runtime_error("a dictionary batch before the schema");
        index.dictionaries.push_back(block);
        break;
      case fb::MessageHeader::RecordBatch:
        if (!schema) throw std::runtime_error("a record batch before the schema");
        index.batches.push_back(block);
        index.dictionaries_before.push_back(index.dictionaries.size());
        break;
      default:
        throw std::runtime_error("a message of an unknown kind at offset " + std::to_string(at));
    }
    at += meta_length + body;
  }
  if (!schema) throw std::runtime_error("no schema message");
  return index;
}

}  // namespace ember::arrow_ipc
