// Arrow IPC reading: every FlatBuffer is verified before use, every buffer range and offset is
// checked against the body, so a corrupt file is a ParseError and never a wild read.
#include "io/arrow/arrow_scan.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/error.h"
#include "io/arrow/File_generated.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_body_codec.h"
#include "io/arrow/arrow_file.h"
#include "io/byte_source.h"
#include "io/duplicate_column_names.h"
#include "io/file_split.h"

namespace ember {
namespace {

// Rebuilds columns from one record batch's nodes and buffers, checking every range.
// The dictionaries of a file by id, as its dictionary batches build them.
using Dictionaries = std::map<int64_t, Column>;

class BatchDecoder {
 public:
  /// `dictionaries` serves the dictionary-encoded fields (none when null).
  BatchDecoder(const fb::RecordBatch* rb, const uint8_t* body, int64_t body_size,
               const Dictionaries* dictionaries = nullptr)
      : rb_(rb), body_(body), body_size_(body_size), dictionaries_(dictionaries) {
    if (const fb::BodyCompression* c = rb->compression()) {
      if (c->codec() != fb::CompressionType::LZ4_FRAME && c->codec() != fb::CompressionType::ZSTD)
        throw std::runtime_error("an unknown body compression");
      codec_ = c->codec() == fb::CompressionType::ZSTD ? arrow_ipc::BodyCodec::Zstd
                                                       : arrow_ipc::BodyCodec::Lz4Frame;
    }
  }

  Column column(const ArrowField& f) {
    if (!rb_->nodes() || node_ >= rb_->nodes()->size())
      throw std::runtime_error("too few field nodes");
    const fb::FieldNode node = unaligned(rb_->nodes()->Get(node_++));
    const int64_t n = node.length(), nulls = node.null_count();
    if (n < 0 || nulls < 0 || nulls > n || n > (int64_t{1} << 40))
      throw std::runtime_error("bad field node");
    auto [vp, vsize] = buffer();
    std::shared_ptr<Buffer> validity;
    if (nulls > 0) {
      if (vsize < bitmap::bytes_for(n)) throw std::runtime_error("validity buffer too small");
      validity = copy(vp, bitmap::bytes_for(n));
    }
    if (f.dictionary && dictionaries_) return decoded(f, n, validity);
    const DataType& t = f.type;
    switch (t.id()) {
      case TypeId::List: {
        auto offsets = checked_offsets(n);
        const int32_t* o = reinterpret_cast<const int32_t*>(offsets->data());
        Column items = column(f.children[0]);
        if (o[n] > items.size()) throw std::runtime_error("list offsets past the items");
        return Column::nested(t, n, -1, validity, offsets, std::move(items));
      }
      case TypeId::FixedSizeList: {
        Column items = column(f.children[0]);
        if (items.size() < n * t.list_size()) throw std::runtime_error("too few list items");
        return Column::nested(t, n, -1, validity, nullptr, std::move(items));
      }
      case TypeId::Utf8:
      case TypeId::Binary: {
        auto offsets = checked_offsets(n);
        const int32_t* o = reinterpret_cast<const int32_t*>(offsets->data());
        auto [dp, dsize] = buffer();
        if (o[n] > dsize) throw std::runtime_error("string offsets past the data");
        return Column::from_buffers(t, n, -1, validity, offsets, copy(dp, dsize));
      }
      case TypeId::Boolean: {
        auto [p, size] = buffer();
        if (size < bitmap::bytes_for(n)) throw std::runtime_error("values buffer too small");
        return Column::from_buffers(t, n, -1, validity, copy(p, bitmap::bytes_for(n)));
      }
      default: {
        if (f.int_bytes) return integers(f, n, validity);
        auto [p, size] = buffer();
        const int w = t.byte_width();
        if (size < n * w) throw std::runtime_error("values buffer too small");
        if (t.id() != TypeId::Timestamp || (f.multiply == 1 && f.divide == 1))
          return Column::from_buffers(t, n, -1, validity, copy(p, n * w));
        auto values = Buffer::allocate(n * 8);
        auto* out = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*values));
        for (int64_t i = 0; i < n; ++i) {
          int64_t v;
          std::memcpy(&v, p + i * 8, 8);
          out[i] =
              static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(f.multiply)) /
              f.divide;
        }
        return Column::from_buffers(t, n, -1, validity, values);
      }
    }
  }

 private:
  std::pair<const uint8_t*, int64_t> buffer() {
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
    decoded_.push_back(arrow_ipc::decompress_buffer(*codec_, stored, int64_t{1} << 31));
    return {reinterpret_cast<const uint8_t*>(decoded_.back().data()),
            static_cast<int64_t>(decoded_.back().size())};
  }

  // A dictionary-encoded column: its indices (checked against the dictionary) looked up.
  Column decoded(const ArrowField& f, int64_t n, const std::shared_ptr<Buffer>& validity) {
    const auto it = dictionaries_->find(*f.dictionary);
    if (it == dictionaries_->end())
      throw std::runtime_error("no dictionary batch with id " + std::to_string(*f.dictionary));
    const Column& dict = it->second;
    auto [p, size] = buffer();
    if (size < n * f.index_bytes) throw std::runtime_error("dictionary indices buffer too small");
    ColumnBuilder out(f.type, n);
    for (int64_t i = 0; i < n; ++i) {
      if (validity && !get_bit(validity->data(), i)) {
        out.append_null();
        continue;
      }
      const uint8_t* at = p + i * f.index_bytes;
      int64_t k;
      if (f.index_bytes == 8) {
        std::memcpy(&k, at, 8);
      } else {
        k = f.index_signed ? load_signed(at, f.index_bytes)
                           : static_cast<int64_t>(load_unsigned(at, f.index_bytes));
      }
      if (k < 0 || k >= dict.size())
        throw std::runtime_error("dictionary index " + std::to_string(k) + " past its " +
                                 std::to_string(dict.size()) + " values");
      out.append_from(dict, k);
    }
    return out.finish();
  }

  // Stored integers in the ember type of `f`: copied when the widths agree, widened otherwise;
  // an unsigned 64-bit value above 2^63 - 1 is an error (never a negative number).
  Column integers(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
    auto [p, size] = buffer();
    const int stored = f.int_bytes, w = f.type.byte_width();
    if (size < n * stored) throw std::runtime_error("values buffer too small");
    if (stored == w) {
      if (stored == 8 && f.int_unsigned) {
        for (int64_t i = 0; i < n; ++i) {
          uint64_t v;
          std::memcpy(&v, p + i * 8, 8);
          // A null slot may hold any bits: only values count.
          if (v > uint64_t{INT64_MAX} && (!validity || get_bit(validity->data(), i)))
            throw std::runtime_error(
                "column '" + f.name + "': unsigned value " + std::to_string(v) +
                " does not fit in int64, which ember reads uint64 columns as (values up to " +
                std::to_string(INT64_MAX) + "); write the column as a signed or decimal type");
        }
      }
      return Column::from_buffers(f.type, n, -1, std::move(validity), copy(p, n * w));
    }
    auto values = Buffer::allocate(n * w);
    uint8_t* out = detail::BufferAccess::mutable_data(*values);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = f.int_unsigned ? int64_t(load_unsigned(p + i * stored, stored))
                                       : load_signed(p + i * stored, stored);
      if (w == 4) {
        const auto v32 = static_cast<int32_t>(v);  // 8- and 16-bit values always fit
        std::memcpy(out + i * 4, &v32, 4);
      } else {
        std::memcpy(out + i * 8, &v, 8);
      }
    }
    return Column::from_buffers(f.type, n, -1, std::move(validity), std::move(values));
  }

  static uint64_t load_unsigned(const uint8_t* p, int bytes) {
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    switch (bytes) {
      case 1:
        std::memcpy(&b8, p, 1);
        return b8;
      case 2:
        std::memcpy(&b16, p, 2);
        return b16;
      default:
        std::memcpy(&b32, p, 4);
        return b32;
    }
  }

  static int64_t load_signed(const uint8_t* p, int bytes) {
    int8_t b8;
    int16_t b16;
    int32_t b32;
    switch (bytes) {
      case 1:
        std::memcpy(&b8, p, 1);
        return b8;
      case 2:
        std::memcpy(&b16, p, 2);
        return b16;
      default:
        std::memcpy(&b32, p, 4);
        return b32;
    }
  }

  static std::shared_ptr<Buffer> copy(const uint8_t* p, int64_t size) {
    auto out = Buffer::allocate(size);
    if (size) std::memcpy(detail::BufferAccess::mutable_data(*out), p, static_cast<size_t>(size));
    return out;
  }

  std::shared_ptr<Buffer> checked_offsets(int64_t n) {
    auto [p, size] = buffer();
    if (n == 0 && size == 0) return Buffer::allocate(4);
    if (size < (n + 1) * 4) throw std::runtime_error("offsets buffer too small");
    auto out = copy(p, (n + 1) * 4);
    const int32_t* o = reinterpret_cast<const int32_t*>(out->data());
    if (o[0] < 0) throw std::runtime_error("negative offset");
    for (int64_t i = 0; i < n; ++i)
      if (o[i + 1] < o[i]) throw std::runtime_error("offsets decrease");
    return out;
  }

  const fb::RecordBatch* rb_;
  const uint8_t* body_;
  int64_t body_size_;
  const Dictionaries* dictionaries_;
  std::optional<arrow_ipc::BodyCodec> codec_;
  std::deque<std::string> decoded_;  ///< decompressed buffers (stable addresses)
  flatbuffers::uoffset_t node_ = 0, buffer_ = 0;
};

// One message of a file (a record or dictionary batch): its block read, its metadata verified.
struct LoadedMessage {
  std::string bytes;  ///< the block: metadata, then body
  AlignedCopy meta{nullptr, 0};
  const fb::Message* message = nullptr;
  const uint8_t* body = nullptr;
  int64_t body_size = 0;
};

LoadedMessage load_message(const ArrowFile& file, const fb::Block& blk) {
  if (blk.offset() < 8 || blk.metaDataLength() < 8 || blk.bodyLength() < 0 ||
      static_cast<uint64_t>(blk.offset()) + uint64_t(blk.metaDataLength()) +
              uint64_t(blk.bodyLength()) >
          static_cast<uint64_t>(file.size))
    throw std::runtime_error("the block lies outside the file");
  LoadedMessage m;
  // This block only, read now: a scan holds in memory the batch it decodes.
  m.bytes = open_byte_source(file.path, file.storage, file.size)
                ->read(blk.offset(), blk.metaDataLength() + blk.bodyLength(), "a record batch");
  const auto* p = reinterpret_cast<const uint8_t*>(m.bytes.data());
  uint32_t marker;
  std::memcpy(&marker, p, 4);
  const int prefix = marker == 0xFFFFFFFFu ? 8 : 4;
  int32_t len;
  std::memcpy(&len, p + prefix - 4, 4);
  if (len <= 0 || len > blk.metaDataLength() - prefix)
    throw std::runtime_error("bad message length");
  m.meta = AlignedCopy(reinterpret_cast<const char*>(p + prefix), static_cast<size_t>(len));
  flatbuffers::Verifier v(m.meta.data(), static_cast<size_t>(len));
  if (!fb::VerifyMessageBuffer(v)) throw std::runtime_error("corrupt message metadata");
  m.message = fb::GetMessage(m.meta.data());
  m.body = p + blk.metaDataLength();
  m.body_size = blk.bodyLength();
  return m;
}

const ArrowField* field_with_dictionary(const std::vector<ArrowField>& fields, int64_t id) {
  for (const ArrowField& f : fields) {
    if (f.dictionary == id) return &f;
    if (const ArrowField* c = field_with_dictionary(f.children, id)) return c;
  }
  return nullptr;
}

// Every dictionary batch of the file, in file order: a delta batch extends its dictionary.
Dictionaries load_dictionaries(const ArrowFile& file) {
  Dictionaries dictionaries;
  for (const fb::Block& blk : file.dictionary_blocks) {
    const LoadedMessage m = load_message(file, blk);
    const fb::DictionaryBatch* db = m.message->header_as_DictionaryBatch();
    if (!db || !db->data()) throw std::runtime_error("a dictionary block holds no dictionary");
    const ArrowField* field = field_with_dictionary(file.fields, db->id());
    if (!field) throw std::runtime_error("a dictionary no column uses");
    ArrowField values = *field;
    values.dictionary.reset();
    BatchDecoder d(db->data(), m.body, m.body_size);
    Column c = d.column(values);
    auto it = dictionaries.find(db->id());
    if (db->isDelta() && it != dictionaries.end()) {
      it->second = Column::concat({it->second, c});
    } else {
      dictionaries[db->id()] = std::move(c);
    }
  }
  return dictionaries;
}

class ArrowBatchReader final : public BatchReader {
 public:
  ArrowBatchReader(std::shared_ptr<const ArrowFile> file, int batch, int64_t batch_rows)
      : file_(std::move(file)), batch_(batch), batch_rows_(batch_rows) {}

  std::optional<Batch> next() override {
    if (!loaded_) load();
    if (pos_ >= rows_) return std::nullopt;
    const int64_t n = std::min(batch_rows_, rows_ - pos_);
    std::vector<Column> cols;
    for (const Column& c : columns_) cols.push_back(c.slice(pos_, n));
    pos_ += n;
    if (cols.empty()) return Batch::empty_with_rows(n);
    return Batch(file_->schema, std::move(cols));
  }
  /// The record batch's block (its metadata and body).
  int64_t bytes_read() const override { return bytes_read_; }

 private:
  void load() {
    loaded_ = true;
    try {
      const fb::Block& blk = file_->blocks[size_t(batch_)];
      const LoadedMessage m = load_message(*file_, blk);
      const fb::RecordBatch* rb = m.message->header_as_RecordBatch();
      if (!rb) throw std::runtime_error("the block is not a record batch");
      const Dictionaries dictionaries = load_dictionaries(*file_);
      rows_ = rb->length();
      // Every column but a null-typed one needs at least a bit per row in the body; a batch
      // of no such columns is still held to 2^24 rows, so a corrupt length cannot make the
      // reader hand out empty batches for ever.
      if (rows_ < 0 || (rows_ > (int64_t{1} << 24) && rows_ / 8 > blk.bodyLength()))
        throw std::runtime_error("a length of " + std::to_string(rows_) + " rows in a body of " +
                                 std::to_string(blk.bodyLength()) + " bytes");
      BatchDecoder d(rb, m.body, m.body_size, &dictionaries);
      bytes_read_ = blk.metaDataLength() + blk.bodyLength();
      for (const ArrowField& f : file_->fields) {
        columns_.push_back(d.column(f));
        if (columns_.back().size() != rows_)
          throw std::runtime_error("a column's length differs from the batch's");
      }
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const Error*>(&e)) throw;
      throw ParseError(file_->path + ": record batch " + std::to_string(batch_) + ": " + e.what());
    }
  }

  std::shared_ptr<const ArrowFile> file_;
  int batch_;
  int64_t batch_rows_;
  bool loaded_ = false;
  int64_t rows_ = 0, pos_ = 0;
  int64_t bytes_read_ = 0;
  std::vector<Column> columns_;
};

}  // namespace

ArrowScan plan_arrow_scan(const std::string& path_or_glob, const StorageOptions& storage) {
  ArrowScan scan;
  for (const FoundFile& found : expand_files(path_or_glob, storage))
    scan.files.push_back(read_arrow_footer(found, storage));
  scan.schema = scan.files.front()->schema;
  for (size_t f = 0; f < scan.files.size(); ++f) {
    if (!(scan.files[f]->schema == scan.schema))
      throw InvalidArgument(scan.files[f]->path + " has columns " +
                            scan.files[f]->schema.to_string() + ", " + scan.files[0]->path +
                            " has " + scan.schema.to_string() +
                            "; the files of one scan must share a schema");
    for (size_t b = 0; b < scan.files[f]->blocks.size(); ++b)
      scan.parts.push_back({int(f), int(b)});
  }
  return scan;
}

const std::string& arrow_file_path(const ArrowFile& file) { return file.path; }

std::unique_ptr<BatchReader> open_arrow_part(const ArrowScan& scan, int p, int64_t batch_rows) {
  if (batch_rows <= 0) throw InvalidArgument("batch rows must be positive");
  const ArrowScan::Part part = scan.parts.at(size_t(p));
  return std::make_unique<ArrowBatchReader>(scan.files[size_t(part.file)], part.batch, batch_rows);
}

}  // namespace ember
