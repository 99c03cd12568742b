// The Arrow IPC stream format (what `.arrows` files, pipes and Arrow Flight carry): no footer,
// only messages one after another — the schema, then dictionary and record batches — to an
// end-of-stream marker. Indexing one walks its messages' metadata once, skipping the bodies, so
// that its record batches can be read as partitions like the file format's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/arrow/File_generated.h"

namespace ember::arrow_ipc {

/// Bytes [offset, offset + size) of the file, or a ParseError/IoError naming it.
using ReadBytes = std::function<std::string(int64_t offset, int64_t size, const char* what)>;

struct StreamIndex {
  std::string schema_message;  ///< the first message's metadata (a verified Message)
  std::vector<org::apache::arrow::flatbuf::Block> batches;       ///< record batches, in order
  std::vector<org::apache::arrow::flatbuf::Block> dictionaries;  ///< dictionary batches, in order
  /// For each record batch, how many dictionary batches come before it in the stream: those
  /// (and only those) define its dictionaries.
  std::vector<size_t> dictionaries_before;
};

/// Whether a file starting with `head` (its first bytes) is in the stream format: a message
/// prefix (0xFFFFFFFF and a length, or a length alone, as old writers wrote) rather than the
/// file format's ARROW1.
bool looks_like_stream(const std::string& head);

/// Indexes the stream of `size` bytes. The stream ends at its end-of-stream marker or at the
/// file's end. Throws std::runtime_error for a malformed stream (the caller names the file).
StreamIndex index_stream(const ReadBytes& read, int64_t size);

}  // namespace ember::arrow_ipc
