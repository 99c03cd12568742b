// Arrow IPC footers: the schema mapped to ember types and the batch blocks, every FlatBuffer
// verified before use.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "ember/error.h"
#include "io/arrow/arrow_file.h"
#include "io/arrow/arrow_scan.h"
#include "io/byte_source.h"
#include "io/duplicate_column_names.h"

namespace ember {
namespace {

ArrowField map_field(const fb::Field* f, const std::string& top, int depth) {
  if (!f || depth > 8) throw ParseError("malformed schema");
  ArrowField out;
  auto unsupported = [&](const std::string& what) {
    return InvalidArgument("column '" + top + "' is " + what +
                           ", which ember does not read from Arrow IPC");
  };
  if (const fb::DictionaryEncoding* d = f->dictionary()) {
    out.dictionary = d->id();
    if (const fb::Int* index = d->indexType()) {
      if (index->bitWidth() != 8 && index->bitWidth() != 16 && index->bitWidth() != 32 &&
          index->bitWidth() != 64)
        throw ParseError("dictionary indices of " + std::to_string(index->bitWidth()) + " bits");
      out.index_bytes = index->bitWidth() / 8;
      out.index_signed = index->is_signed();
    }
  }
  auto child = [&]() {
    if (!f->children() || f->children()->size() != 1)
      throw ParseError("a list field without one child");
    out.children.push_back(map_field(f->children()->Get(0), top, depth + 1));
    return out.children.back().type;
  };
  switch (f->type_type()) {
    case fb::Type::Bool:
      out.type = boolean();
      break;
    case fb::Type::Int: {
      // As the Parquet reader does: 8- and 16-bit integers widen to int32, uint32 to int64,
      // and uint64 reads as int64 when its values fit (checked as each batch is read).
      const auto* t = f->type_as_Int();
      const int bits = t ? t->bitWidth() : 0;
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        throw ParseError("an integer type of " + std::to_string(bits) + " bits");
      out.int_bytes = bits / 8;
      out.int_unsigned = !t->is_signed();
      out.type = bits == 64 || (bits == 32 && out.int_unsigned) ? int64() : int32();
      break;
    }
    case fb::Type::FloatingPoint: {
      const auto* t = f->type_as_FloatingPoint();
      if (!t || t->precision() == fb::Precision::HALF) throw unsupported("float16");
      out.type = t->precision() == fb::Precision::SINGLE ? float32() : float64();
      break;
    }
    case fb::Type::Utf8:
      out.type = utf8();
      break;
    case fb::Type::Binary:
      out.type = binary();
      break;
    case fb::Type::Timestamp: {
      const auto* t = f->type_as_Timestamp();
      if (!t) throw ParseError("malformed timestamp type");
      out.type = timestamp_us();
      switch (t->unit()) {
        case fb::TimeUnit::SECOND:
          out.multiply = 1000000;
          break;
        case fb::TimeUnit::MILLISECOND:
          out.multiply = 1000;
          break;
        case fb::TimeUnit::NANOSECOND:
          out.divide = 1000;
          break;
        default:
          break;
      }
      break;
    }
    case fb::Type::Date: {
      // date32 (days) as it is; date64 (milliseconds) as the instant it holds.
      const auto* t = f->type_as_Date();
      if (t && t->unit() == fb::DateUnit::DAY) {
        out.type = date32();
      } else {
        out.type = timestamp_us();
        out.multiply = 1000;
      }
      break;
    }
    case fb::Type::List:
      out.type = list(child());
      break;
    case fb::Type::FixedSizeList: {
      const auto* t = f->type_as_FixedSizeList();
      if (!t || t->listSize() < 1) throw ParseError("malformed fixed-size list");
      out.type = fixed_size_list(child(), t->listSize());
      break;
    }
    default:
      throw unsupported("of Arrow type " + std::string(fb::EnumNameType(f->type_type())));
  }
  out.name = top;
  return out;
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
  const std::string head = size < 18 || guess == size
                               ? end.substr(0, std::min<size_t>(6, end.size()))
                           : in->remote() ? std::string("ARROW1")
                                          : in->read(0, 6, "the header");
  if (size < 18 || head != "ARROW1" || from_end(6, 6) != "ARROW1")
    throw ParseError(path +
                     ": not an Arrow IPC file (bad magic number; expected ARROW1 at both ends)");
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
  // A name the schema repeats is renamed in its repeats (x, x_1, ...), as the Parquet reader
  // does, so that col("x") can never stand for two columns.
  std::vector<std::string> names;
  for (const fb::Field* f : *footer->schema()->fields())
    names.push_back(f && f->name() ? f->name()->str() : "");
  names = rename_duplicate_columns(std::move(names));
  std::vector<Field> fields;
  for (const fb::Field* f : *footer->schema()->fields()) {
    const std::string& name = names[fields.size()];
    try {
      file->fields.push_back(map_field(f, name, 0));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(path + ": " + e.what());
    } catch (const ParseError& e) {
      throw ParseError(path + ": column '" + name + "': " + e.what());
    }
    fields.push_back(Field{name, file->fields.back().type});
  }
  file->schema = Schema(std::move(fields));
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
