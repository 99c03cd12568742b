// Arrow IPC footers (or, for the stream format, the stream's messages): the schema mapped to
// ember types and the batch blocks, every FlatBuffer verified before use.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "ember/error.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_file.h"
#include "io/arrow/arrow_scan.h"
#include "io/arrow/arrow_stream_index.h"
#include "io/byte_source.h"
#include "io/duplicate_column_names.h"

namespace ember {
namespace {

/// The columns of `schema` (a footer's, or a stream's first message's) as ember fields.
void set_schema(ArrowFile& file, const fb::Schema* schema) {
  const std::string& path = file.path;
  if (!schema || !schema->fields()) throw ParseError(path + ": no schema");
  // A name the schema repeats is renamed in its repeats (x, x_1, ...), as the Parquet reader
  // does, so that col("x") can never stand for two columns.
  std::vector<std::string> names;
  for (const fb::Field* f : *schema->fields())
    names.push_back(f && f->name() ? f->name()->str() : "");
  names = rename_duplicate_columns(std::move(names));
  std::vector<Field> fields;
  for (const fb::Field* f : *schema->fields()) {
    const std::string& name = names[fields.size()];
    try {
      file.fields.push_back(arrow_ipc::map_field(f, name, 0));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(path + ": " + e.what());
    } catch (const ParseError& e) {
      throw ParseError(path + ": column '" + name + "': " + e.what());
    }
    fields.push_back(Field{name, file.fields.back().type});
  }
  file.schema = Schema(std::move(fields));
}

/// A file in the stream format: its messages indexed (the schema read, the batches' blocks
/// kept for their partitions). A remote stream costs two requests per message here.
std::shared_ptr<ArrowFile> read_stream(std::shared_ptr<ArrowFile> file, const ByteSource& in) {
  arrow_ipc::StreamIndex index;
  try {
    index = arrow_ipc::index_stream(
        [&in](int64_t offset, int64_t n, const char* what) { return in.read(offset, n, what); },
        file->size);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const Error*>(&e)) throw;
    throw ParseError(file->path + ": Arrow IPC stream: " + e.what());
  }
  const AlignedCopy meta(index.schema_message.data(), index.schema_message.size());
  set_schema(*file, fb::GetMessage(meta.data())->header_as_Schema());
  file->blocks = std::move(index.batches);
  file->dictionary_blocks = std::move(index.dictionaries);
  file->dictionaries_before = std::move(index.dictionaries_before);
  return file;
}

}  // namespace

std::shared_ptr<ArrowFile> read_arrow_footer(const FoundFile& found,
                                             const StorageOptions& storage) {
  const std::string& path = found.path;
  auto file = std::make_shared<ArrowFile>();
  file->path = path;
  file->storage = storage;
  const std::unique_ptr<ByteSource> in = open_byte_source(path, storage, found.size);
  file->size = in->size();
  const int64_t size = file->size;
  // The magic at both ends and the footer before the last: the record batches are read when
  // their partitions are. One read of the file's end (the footer, most often) serves them; a
  // remote file's leading magic would cost a request of its own, and the footer's checks
  // catch a file that is not Arrow IPC.
  const int64_t guess = std::min<int64_t>(size, kArrowFooterGuessBytes);
  const std::string end = size < 18 ? "" : in->read(size - guess, guess, "the footer");
  const auto from_end = [&](int64_t back, int64_t n) {
    return end.substr(end.size() - static_cast<size_t>(back), static_cast<size_t>(n));
  };
  if (size < 18 || end.compare(end.size() - 6, 6, "ARROW1") != 0) {
    // No file-format magic at the end: the stream format (messages to an end-of-stream
    // marker), or not Arrow IPC at all.
    const std::string first = size < 8                        ? std::string()
                              : !end.empty() && guess == size ? end.substr(0, 8)
                                                              : in->read(0, 8, "the header");
    if (arrow_ipc::looks_like_stream(first)) return read_stream(std::move(file), *in);
  }
  const std::string head = size < 18 || guess == size
                               ? end.substr(0, std::min<size_t>(6, end.size()))
                           : in->remote() ? std::string("ARROW1")
                                          : in->read(0, 6, "the header");
  if (size < 18 || head != "ARROW1" || from_end(6, 6) != "ARROW1")
    throw ParseError(path +
                     ": not an Arrow IPC file (bad magic number; expected ARROW1 at both ends, "
                     "or a stream's first message)");
  int32_t len;
  const std::string len_bytes = from_end(10, 4);
  std::memcpy(&len, len_bytes.data(), 4);
  if (len <= 0 || len > size - 18)
    throw ParseError(path + ": footer length " + std::to_string(len) + " does not fit the file");
  const std::string footer_read =
      len + 10 <= guess ? from_end(len + 10, len) : in->read(size - 10 - len, len, "the footer");
  const AlignedCopy footer_bytes(footer_read.data(), static_cast<size_t>(len));
  const uint8_t* start = footer_bytes.data();
  flatbuffers::Verifier v(start, static_cast<size_t>(len));
  if (!fb::VerifyFooterBuffer(v)) throw ParseError(path + ": corrupt footer");
  const fb::Footer* footer = fb::GetFooter(start);
  if (!footer->schema() || !footer->schema()->fields())
    throw ParseError(path + ": footer without a schema");
  set_schema(*file, footer->schema());
  if (footer->dictionaries()) {
    for (const fb::Block* blk : *footer->dictionaries()) {
      const fb::Block block = unaligned(blk);
      if (block.offset() < 0 || block.metaDataLength() < 0 || block.bodyLength() < 0 ||
          block.offset() > size || block.metaDataLength() > size || block.bodyLength() > size ||
          block.offset() + block.metaDataLength() + block.bodyLength() > size)
        throw ParseError(path + ": a dictionary batch block runs past the end of the file");
      file->dictionary_blocks.push_back(block);
    }
  }
  if (footer->recordBatches()) {
    // Blocks follow each other through the file without overlapping, as every writer lays
    // them out: a footer naming one block many times would decode it again for each.
    int64_t end_of_previous = 0;
    for (const fb::Block* blk : *footer->recordBatches()) {
      const fb::Block block = unaligned(blk);
      if (block.offset() < end_of_previous || block.metaDataLength() < 0 || block.bodyLength() < 0)
        throw ParseError(path + ": record batch block " + std::to_string(file->blocks.size()) +
                         " overlaps the one before it");
      // Each part within the file first, so that their sum cannot overflow.
      if (block.offset() > size || block.metaDataLength() > size || block.bodyLength() > size ||
          block.offset() + block.metaDataLength() + block.bodyLength() > size)
        throw ParseError(path + ": record batch block " + std::to_string(file->blocks.size()) +
                         " runs past the end of the file (" + std::to_string(size) + " bytes)");
      end_of_previous = block.offset() + block.metaDataLength() + block.bodyLength();
      file->blocks.push_back(block);
    }
  }
  return file;
}

}  // namespace ember
