// Arrow IPC writing: FlatBuffers metadata built with the flatc-generated builders, each column's
// buffers (validity, offsets, values, then children) copied into the body at 8-byte alignment,
// slices rebased to start at row 0.
#include "io/arrow/arrow_writer.h"

#include <cstring>

#include "core/bitmap.h"
#include "ember/error.h"
#include "io/arrow/File_generated.h"
#include "io/arrow/Message_generated.h"

namespace ember {

namespace fb = org::apache::arrow::flatbuf;

namespace {

int64_t padded8(int64_t n) { return (n + 7) / 8 * 8; }

flatbuffers::Offset<fb::Field> field_of(flatbuffers::FlatBufferBuilder& b, const std::string& name,
                                        const DataType& t, bool nullable = true);

// A map as Arrow spells it: a non-nullable "entries" struct of a non-nullable "key" and a
// "value", keys not declared sorted.
flatbuffers::Offset<fb::Field> entries_of(flatbuffers::FlatBufferBuilder& b, const DataType& t) {
  const std::vector<Field>& kv = t.element().fields();
  std::vector<flatbuffers::Offset<fb::Field>> children{field_of(b, "key", kv[0].type, false),
                                                       field_of(b, "value", kv[1].type)};
  return fb::CreateField(b, b.CreateString("entries"), false, fb::Type::Struct_,
                         fb::CreateStruct_(b).Union(), 0, b.CreateVector(children));
}

flatbuffers::Offset<fb::Field> field_of(flatbuffers::FlatBufferBuilder& b, const std::string& name,
                                        const DataType& t, bool nullable) {
  std::vector<flatbuffers::Offset<fb::Field>> children;
  fb::Type type = fb::Type::NONE;
  flatbuffers::Offset<void> body;
  switch (t.id()) {
    case TypeId::Boolean:
      type = fb::Type::Bool, body = fb::CreateBool(b).Union();
      break;
    case TypeId::Int32:
      type = fb::Type::Int, body = fb::CreateInt(b, 32, true).Union();
      break;
    case TypeId::Int64:
      type = fb::Type::Int, body = fb::CreateInt(b, 64, true).Union();
      break;
    case TypeId::Float32:
      type = fb::Type::FloatingPoint,
      body = fb::CreateFloatingPoint(b, fb::Precision::SINGLE).Union();
      break;
    case TypeId::Float64:
      type = fb::Type::FloatingPoint,
      body = fb::CreateFloatingPoint(b, fb::Precision::DOUBLE).Union();
      break;
    case TypeId::Utf8:
      type = fb::Type::Utf8, body = fb::CreateUtf8(b).Union();
      break;
    case TypeId::Binary:
      type = fb::Type::Binary, body = fb::CreateBinary(b).Union();
      break;
    case TypeId::Date32:
      type = fb::Type::Date, body = fb::CreateDate(b, fb::DateUnit::DAY).Union();
      break;
    case TypeId::Timestamp:
      type = fb::Type::Timestamp;
      body = fb::CreateTimestamp(b, fb::TimeUnit::MICROSECOND, b.CreateString("UTC")).Union();
      break;
    case TypeId::List:
      children.push_back(field_of(b, "item", t.element()));
      type = fb::Type::List, body = fb::CreateList(b).Union();
      break;
    case TypeId::FixedSizeList:
      children.push_back(field_of(b, "item", t.element()));
      type = fb::Type::FixedSizeList, body = fb::CreateFixedSizeList(b, t.list_size()).Union();
      break;
    case TypeId::Struct:
      for (const Field& f : t.fields()) children.push_back(field_of(b, f.name, f.type));
      type = fb::Type::Struct_, body = fb::CreateStruct_(b).Union();
      break;
    case TypeId::Map:
      children.push_back(entries_of(b, t));
      type = fb::Type::Map, body = fb::CreateMap(b, false).Union();
      break;
    case TypeId::Null:
      throw InvalidArgument("Arrow IPC output cannot hold column '" + name + "' of type " +
                            t.to_string());
  }
  return fb::CreateField(b, b.CreateString(name), nullable, type, body, 0,
                         b.CreateVector(children));
}

flatbuffers::Offset<fb::Schema> schema_of(flatbuffers::FlatBufferBuilder& b, const Schema& s) {
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  for (const Field& f : s.fields()) fields.push_back(field_of(b, f.name, f.type));
  return fb::CreateSchema(b, fb::Endianness::Little, b.CreateVector(fields));
}

// A record batch's body and the FieldNode/Buffer entries that describe it.
struct Body {
  std::optional<arrow_ipc::BodyCodec> codec;  ///< each buffer compressed on its own when set
  std::string bytes;
  std::vector<fb::FieldNode> nodes;
  std::vector<fb::Buffer> buffers;
  std::string top;  ///< the top-level column being added, for errors

  void add(const void* data, int64_t size) {
    if (codec && size > 0) {
      const std::string packed = arrow_ipc::compress_buffer(
          *codec, std::string_view(static_cast<const char*>(data), static_cast<size_t>(size)));
      return add_stored(packed.data(), static_cast<int64_t>(packed.size()));
    }
    add_stored(data, size);
  }
  void add_stored(const void* data, int64_t size) {
    buffers.emplace_back(static_cast<int64_t>(bytes.size()), size);
    if (size > 0) bytes.append(static_cast<const char*>(data), static_cast<size_t>(size));
    bytes.resize(static_cast<size_t>(padded8(static_cast<int64_t>(bytes.size()))), '\0');
  }
  void add_bits(const uint8_t* bits, int64_t offset, int64_t n) {
    auto copy = bitmap::copy(bits, offset, n);
    add(copy->data(), bitmap::bytes_for(n));
  }
  void add_offsets(const int32_t* o, int64_t n) {
    std::vector<int32_t> rebased(static_cast<size_t>(n + 1));
    for (int64_t i = 0; i <= n; ++i) rebased[size_t(i)] = o[i] - o[0];
    add(rebased.data(), (n + 1) * 4);
  }

  void column(const Column& c) {
    const int64_t n = c.size();
    nodes.emplace_back(n, c.null_count());
    if (c.null_count() > 0)
      add_bits(c.validity_bits(), c.offset(), n);
    else
      add(nullptr, 0);
    switch (c.type().id()) {
      case TypeId::Boolean:
        add_bits(c.bool_bits(), c.offset(), n);
        return;
      case TypeId::Utf8:
      case TypeId::Binary: {
        const int32_t* o = c.offsets();
        add_offsets(o, n);
        add(c.chars() + o[0], o[n] - o[0]);
        return;
      }
      case TypeId::Struct:
        for (const Column& child : c.children()) column(child.slice(c.offset(), n));
        return;
      case TypeId::List:
      case TypeId::Map: {
        const int32_t* o = c.offsets();
        add_offsets(o, n);
        const Column items = c.child().slice(o[0], o[n] - o[0]);
        // The schema declares keys (and entries) non-nullable, as Arrow requires of a map.
        if (c.type().id() == TypeId::Map && items.field(0).null_count() > 0)
          throw InvalidArgument("Arrow IPC output: column '" + top + "' holds a map entry " +
                                "with a null key (or a null entry), which Arrow maps cannot hold");
        column(items);
        return;
      }
      case TypeId::FixedSizeList: {
        const int64_t k = c.type().list_size();
        column(c.child().slice(c.offset() * k, n * k));
        return;
      }
      default: {
        const int w = c.type().byte_width();
        add(c.values_buffer()->data() + c.offset() * w, n * w);
        return;
      }
    }
  }
};

// An encapsulated message: continuation marker, metadata length, metadata (padded to 8).
std::string frame(const flatbuffers::FlatBufferBuilder& b) {
  const int32_t len = static_cast<int32_t>(padded8(b.GetSize() + 8) - 8);
  std::string out(8, '\0');
  const uint32_t marker = 0xFFFFFFFFu;
  std::memcpy(out.data(), &marker, 4);
  std::memcpy(out.data() + 4, &len, 4);
  out.append(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  out.resize(static_cast<size_t>(8 + len), '\0');
  return out;
}

}  // namespace

struct ArrowWriter::Blocks {
  std::vector<fb::Block> batches;
};

void check_arrow_schema(const Schema& schema) {
  flatbuffers::FlatBufferBuilder b;
  schema_of(b, schema);  // throws for a type Arrow output cannot hold
}

ArrowWriter::ArrowWriter(const std::string& dir, const std::string& name, const Schema& schema,
                         const ArrowWriteOptions& options)
    : file_(dir, name),
      schema_(schema),
      stream_(options.stream),
      blocks_(std::make_unique<Blocks>()) {
  if (options.compression == Compression::Zstd) codec_ = arrow_ipc::BodyCodec::Zstd;
  if (options.compression == Compression::Lz4) codec_ = arrow_ipc::BodyCodec::Lz4Frame;
  flatbuffers::FlatBufferBuilder b;
  const auto s = schema_of(b, schema_);
  b.Finish(fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::Schema, s.Union(), 0));
  std::string head = stream_ ? std::string() : std::string("ARROW1\0\0", 8);
  head += frame(b);
  file_.write(head);
  offset_ = static_cast<int64_t>(head.size());
}

ArrowWriter::~ArrowWriter() = default;

void ArrowWriter::write(const Batch& batch) {
  if (!(batch.schema() == schema_)) {
    throw InvalidArgument("batch schema (" + batch.schema().to_string() +
                          ") differs from the output schema (" + schema_.to_string() + ")");
  }
  if (batch.num_rows() == 0) return;
  Body body;
  body.codec = codec_;
  for (int i = 0; i < batch.num_columns(); ++i) {
    body.top = schema_.field(i).name;
    body.column(batch.column(i));
  }
  flatbuffers::FlatBufferBuilder b;
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (codec_) {
    compression = fb::CreateBodyCompression(b, *codec_ == arrow_ipc::BodyCodec::Zstd
                                                   ? fb::CompressionType::ZSTD
                                                   : fb::CompressionType::LZ4_FRAME);
  }
  const auto rb = fb::CreateRecordBatch(b, batch.num_rows(), b.CreateVectorOfStructs(body.nodes),
                                        b.CreateVectorOfStructs(body.buffers), compression);
  b.Finish(fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch, rb.Union(),
                             static_cast<int64_t>(body.bytes.size())));
  const std::string meta = frame(b);
  blocks_->batches.emplace_back(offset_, static_cast<int32_t>(meta.size()),
                                static_cast<int64_t>(body.bytes.size()));
  file_.write(meta);
  file_.write(body.bytes);
  offset_ += static_cast<int64_t>(meta.size() + body.bytes.size());
}

void ArrowWriter::commit() {
  flatbuffers::FlatBufferBuilder b;
  const auto s = schema_of(b, schema_);
  std::vector<fb::Block> none;
  b.Finish(fb::CreateFooter(b, fb::MetadataVersion::V5, s, b.CreateVectorOfStructs(none),
                            b.CreateVectorOfStructs(blocks_->batches)));
  // End of stream, then the footer, its length and the magic.
  std::string tail(8, '\0');
  const uint32_t marker = 0xFFFFFFFFu;
  std::memcpy(tail.data(), &marker, 4);
  if (stream_) {  // the end-of-stream marker alone
    file_.write(tail);
    file_.commit();
    return;
  }
  tail.append(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  const int32_t len = static_cast<int32_t>(b.GetSize());
  tail.append(reinterpret_cast<const char*>(&len), 4);
  tail.append("ARROW1", 6);
  file_.write(tail);
  file_.commit();
}

}  // namespace ember
