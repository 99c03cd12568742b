// Arrow's view types, in IPC streams built here with the FlatBuffers code of src/io/arrow/*.fbs:
// Utf8View and BinaryView values inline and in several variadic data buffers, ListView ranges
// out of order and overlapping, LargeListView, nulls, a compressed body; and damaged views or
// ranges, each a ParseError naming the file and the column.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_body_codec.h"
#include "io/arrow/arrow_scan.h"

namespace ember {
namespace {

namespace fb = org::apache::arrow::flatbuf;

std::string raw(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }
template <class T>
std::string le(T v) {
  return raw(&v, sizeof v);
}

/// A 16-byte view of `value`: inline up to 12 bytes, else in data buffer `index` at `offset`.
std::string view(const std::string& value, int32_t index = 0, int32_t offset = 0) {
  std::string v = le(static_cast<int32_t>(value.size()));
  if (value.size() <= 12) return v + value + std::string(12 - value.size(), '\0');
  return v + value.substr(0, 4) + le(index) + le(offset);
}

std::string validity(std::initializer_list<bool> bits) {
  std::string out(8, '\0');
  int i = 0;
  for (bool b : bits) {
    if (b) out[size_t(i / 8)] = char(out[size_t(i / 8)] | (1 << (i % 8)));
    ++i;
  }
  return out;
}

/// The four-row batch of every test: columns s (utf8 view), b (binary view), l (list view of
/// int32), ll (large list view of int32) and ls (list of utf8 view), as nodes, buffers and
/// variadic counts (one per view column, depth first).
struct Batch4 {
  std::vector<fb::FieldNode> nodes{{4, 1}, {4, 1}, {4, 1}, {5, 0}, {4, 0}, {4, 0}, {4, 0}, {4, 0}};
  std::vector<std::string> buffers;
  std::vector<int64_t> variadic{2, 1, 1};
  const std::string long0 = "another long value here", long1 = "a string longer than twelve";
  const std::string bin = std::string("\0\1\2\3\0\0\0\7binary, long", 20);

  Batch4() {
    // s: "short", null, long1 (data buffer 1 at 0), long0 (data buffer 0 at 3).
    buffers = {validity({true, false, true, true}),
               view("short") + std::string(16, '\x7f') + view(long1, 1, 0) + view(long0, 0, 3),
               "xyz" + long0, long1};
    // b: "", 12 bytes inline, 20 bytes with zeros (data buffer 0 at 0), null.
    buffers.insert(buffers.end(), {validity({true, true, true, false}),
                                   view("") + view("exactly12byt") + view(bin) + view(""), bin});
    // l: items 10..50; rows [30, 40], [10, 20, 30] (overlapping, out of order), null, [].
    buffers.insert(buffers.end(), {validity({true, true, false, true}),
                                   le<int32_t>(2) + le<int32_t>(0) + le<int32_t>(99) + le(4),
                                   le<int32_t>(2) + le<int32_t>(3) + le<int32_t>(5) + le(0), "",
                                   le<int32_t>(10) + le(20) + le(30) + le(40) + le(50)});
    // ll: items 1..4 following on: [1], [2, 3], [], [4].
    buffers.insert(buffers.end(),
                   {"", le<int64_t>(0) + le<int64_t>(1) + le<int64_t>(3) + le<int64_t>(3),
                    le<int64_t>(1) + le<int64_t>(2) + le<int64_t>(0) + le<int64_t>(1), "",
                    le<int32_t>(1) + le(2) + le(3) + le(4)});
    // ls: ["inline", long0], [], ["x"], [long1]; its items' one data buffer long0 + long1.
    buffers.insert(buffers.end(), {"", le<int32_t>(0) + le(2) + le(2) + le(3) + le(4), "",
                                   view("inline") + view(long0, 0, 0) + view("x") +
                                       view(long1, 0, int32_t(long0.size())),
                                   long0 + long1});
  }
};

flatbuffers::Offset<fb::Field> field(flatbuffers::FlatBufferBuilder& b, const char* name,
                                     fb::Type type, flatbuffers::Offset<void> t,
                                     std::vector<flatbuffers::Offset<fb::Field>> children = {}) {
  return fb::CreateFieldDirect(b, name, true, type, t, 0, &children);
}

/// One stream message: continuation marker, metadata length, the message padded, the body.
void message(std::string& out, std::string meta, const std::string& body) {
  meta.resize((meta.size() + 7) / 8 * 8, '\0');
  out += le<uint32_t>(0xFFFFFFFFu) + le(static_cast<int32_t>(meta.size())) + meta + body;
}

std::string schema_message() {
  flatbuffers::FlatBufferBuilder b;
  auto int32 = [&] { return fb::CreateInt(b, 32, true).Union(); };
  std::vector<flatbuffers::Offset<fb::Field>> fields{
      field(b, "s", fb::Type::Utf8View, fb::CreateUtf8View(b).Union()),
      field(b, "b", fb::Type::BinaryView, fb::CreateBinaryView(b).Union()),
      field(b, "l", fb::Type::ListView, fb::CreateListView(b).Union(),
            {field(b, "item", fb::Type::Int, int32())}),
      field(b, "ll", fb::Type::LargeListView, fb::CreateLargeListView(b).Union(),
            {field(b, "item", fb::Type::Int, int32())}),
      field(b, "ls", fb::Type::List, fb::CreateList(b).Union(),
            {field(b, "item", fb::Type::Utf8View, fb::CreateUtf8View(b).Union())})};
  auto schema = fb::CreateSchemaDirect(b, fb::Endianness::Little, &fields);
  b.Finish(
      fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::Schema, schema.Union(), 0));
  std::string out;
  message(out, raw(b.GetBufferPointer(), b.GetSize()), "");
  return out;
}

/// How a batch message carries its variadic buffer counts.
enum class Counts {
  kAligned,
  kMissing,
  /// At an offset of 4 modulo 8 in the message: FlatBuffers verifies a vector's elements only to
  /// the alignment of its length, so a reader must not load them as aligned int64s.
  kMisaligned,
};

/// The record batch message of `batch` over `buffers`, its counts stored after `pad` words.
flatbuffers::DetachedBuffer batch_message(const Batch4& batch,
                                          const std::vector<fb::Buffer>& buffers, bool compress,
                                          Counts counts, int pad, int64_t body_size) {
  flatbuffers::FlatBufferBuilder b;
  flatbuffers::Offset<fb::BodyCompression> codec;
  if (compress) codec = fb::CreateBodyCompression(b, fb::CompressionType::ZSTD);
  flatbuffers::Offset<flatbuffers::Vector<int64_t>> variadic;
  if (counts == Counts::kAligned) variadic = b.CreateVector(batch.variadic);
  if (counts == Counts::kMisaligned) {
    // The counts' bytes pushed as 32-bit words: the builder aligns those to 4 only.
    std::vector<uint32_t> words(batch.variadic.size() * 2);
    std::memcpy(words.data(), batch.variadic.data(), words.size() * 4);
    for (int k = 0; k < pad; ++k) b.PushElement<uint32_t>(0);
    b.StartVector(batch.variadic.size(), 4);
    for (size_t k = words.size(); k-- > 0;) b.PushElement(words[k]);
    variadic =
        flatbuffers::Offset<flatbuffers::Vector<int64_t>>(b.EndVector(batch.variadic.size()));
  }
  auto rb = fb::CreateRecordBatch(b, 4, b.CreateVectorOfStructs(batch.nodes),
                                  b.CreateVectorOfStructs(buffers), codec, variadic);
  b.Finish(fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch, rb.Union(),
                             body_size));
  return b.Release();
}

/// The batch as a stream file at `name`; its buffers compressed with zstd when `compress`.
std::string write_stream(const std::string& name, const Batch4& batch, bool compress = false,
                         Counts counts = Counts::kAligned) {
  std::string body;
  std::vector<fb::Buffer> buffers;
  for (const std::string& stored : batch.buffers) {
    const std::string bytes =
        compress ? arrow_ipc::compress_buffer(arrow_ipc::BodyCodec::Zstd, stored) : stored;
    buffers.emplace_back(static_cast<int64_t>(body.size()), static_cast<int64_t>(bytes.size()));
    body += bytes;
    body.resize((body.size() + 7) / 8 * 8, '\0');
  }
  const auto size = static_cast<int64_t>(body.size());
  flatbuffers::DetachedBuffer meta = batch_message(batch, buffers, compress, counts, 0, size);
  if (counts == Counts::kMisaligned) {
    const auto* rb = fb::GetMessage(meta.data())->header_as_RecordBatch();
    if ((rb->variadicBufferCounts()->Data() - meta.data()) % 8 == 0)
      meta = batch_message(batch, buffers, compress, counts, 1, size);
    const auto* moved = fb::GetMessage(meta.data())->header_as_RecordBatch();
    EXPECT_EQ((moved->variadicBufferCounts()->Data() - meta.data()) % 8, 4);
  }
  std::string out = schema_message();
  message(out, raw(meta.data(), meta.size()), body);
  out += le<uint32_t>(0xFFFFFFFFu) + le<int32_t>(0);
  const std::string path = (std::filesystem::path(testing::TempDir()) / name).string();
  std::ofstream(path, std::ios::binary) << out;
  return path;
}

Table read_all(const std::string& path) {
  const ArrowScan scan = plan_arrow_scan(path);
  std::vector<ember::Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_arrow_part(scan, static_cast<int>(p), 100);
    while (auto batch = reader->next()) batches.push_back(std::move(*batch));
  }
  return Table(scan.schema, std::move(batches));
}

std::optional<std::vector<int32_t>> ints(const Column& lists, int64_t row) {
  if (lists.is_null(row)) return std::nullopt;
  const Column items = lists.list(row);
  std::vector<int32_t> out;
  for (int64_t k = 0; k < items.size(); ++k) out.push_back(items.value<int32_t>(k));
  return out;
}

void expect_batch4(const Table& t) {
  using V = std::vector<int32_t>;
  using Ints = std::optional<V>;
  ASSERT_EQ(t.schema().to_string(),
            "s: utf8, b: binary, l: list<int32>, ll: list<int32>, ls: list<utf8>");
  ASSERT_EQ(t.num_rows(), 4);
  const Batch4 want;
  const Column s = t.column("s"), b = t.column("b"), l = t.column("l"), ll = t.column("ll");
  EXPECT_EQ(s.value<std::string>(0), "short");
  EXPECT_TRUE(s.is_null(1));
  EXPECT_EQ(s.value<std::string>(2), want.long1);
  EXPECT_EQ(s.value<std::string>(3), want.long0);
  EXPECT_EQ(b.value<std::string>(0), "");
  EXPECT_EQ(b.value<std::string>(1), "exactly12byt");
  EXPECT_EQ(b.value<std::string>(2), want.bin);
  EXPECT_TRUE(b.is_null(3));
  EXPECT_EQ(ints(l, 0), Ints(V{30, 40}));
  EXPECT_EQ(ints(l, 1), Ints(V{10, 20, 30}));
  EXPECT_EQ(ints(l, 2), std::nullopt);
  EXPECT_EQ(ints(l, 3), Ints(V{}));
  EXPECT_EQ(ints(ll, 0), Ints(V{1}));
  EXPECT_EQ(ints(ll, 1), Ints(V{2, 3}));
  EXPECT_EQ(ints(ll, 2), Ints(V{}));
  EXPECT_EQ(ints(ll, 3), Ints(V{4}));
  const Column ls = t.column("ls");
  ASSERT_EQ(ls.list(0).size(), 2);
  EXPECT_EQ(ls.list(0).value<std::string>(0), "inline");
  EXPECT_EQ(ls.list(0).value<std::string>(1), want.long0);
  EXPECT_EQ(ls.list(1).size(), 0);
  EXPECT_EQ(ls.list(2).value<std::string>(0), "x");
  EXPECT_EQ(ls.list(3).value<std::string>(0), want.long1);
}

TEST(ArrowViewTypes, ViewsAndListViewsReadAsEmberColumns) {
  expect_batch4(read_all(write_stream("views.arrows", Batch4())));
}

TEST(ArrowViewTypes, CountsAtAnOffsetNotAMultipleOfEightAreReadByteWise) {
  expect_batch4(
      read_all(write_stream("views_odd_counts.arrows", Batch4(), false, Counts::kMisaligned)));
}

TEST(ArrowViewTypes, ACompressedBodyCompressesTheVariadicBuffersToo) {
  expect_batch4(read_all(write_stream("views_zstd.arrows", Batch4(), true)));
}

void expect_parse_error(const std::string& path, const std::string& message) {
  try {
    const Table t = read_all(path);
    FAIL() << "read as " << t.to_string();
  } catch (const ParseError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(path)) << e.what();
    EXPECT_THAT(e.what(), ::testing::HasSubstr(message)) << e.what();
  }
}

TEST(ArrowViewTypes, DamagedViewsAreParseErrorsNamingFileAndColumn) {
  {
    Batch4 bad;  // s's third view into data buffer 2 of its 2
    bad.buffers[1].replace(2 * 16 + 8, 4, le<int32_t>(2));
    expect_parse_error(write_stream("bad_index.arrows", bad),
                       "column 's': a view into data buffer 2 of 2");
  }
  {
    Batch4 bad;  // s's fourth view at offset 4 of a 26-byte buffer: one byte past its end
    bad.buffers[1].replace(3 * 16 + 12, 4, le<int32_t>(4));
    expect_parse_error(write_stream("bad_offset.arrows", bad), "column 's': a view of 23 bytes");
  }
  {
    Batch4 bad;  // b's first view of length -1
    bad.buffers[5].replace(0, 4, le<int32_t>(-1));
    expect_parse_error(write_stream("bad_length.arrows", bad), "column 'b': a negative view");
  }
  {
    Batch4 bad;  // b's data buffer's first bytes changed: the view's prefix no longer matches
    bad.buffers[6][0] = 'X';
    expect_parse_error(write_stream("bad_prefix.arrows", bad), "column 'b': a view whose prefix");
  }
  {
    Batch4 bad;  // b claims 50 data buffers: past the batch's buffers
    bad.variadic[1] = 50;
    expect_parse_error(write_stream("bad_count.arrows", bad), "column 'b': 50 variadic buffers");
  }
  expect_parse_error(write_stream("no_counts.arrows", Batch4(), false, Counts::kMissing),
                     "column 's': no variadic buffer count");
  {
    Batch4 bad;  // ls's items' fourth view at 24: one byte past their data buffer of 50
    bad.buffers[20].replace(3 * 16 + 12, 4, le<int32_t>(24));
    expect_parse_error(write_stream("bad_nested_view.arrows", bad),
                       "column 'ls': a view of 27 bytes at 24 past its data buffer of 50");
  }
  {
    Batch4 bad;  // l's first list: 2 items at 4, past its 5 items
    bad.buffers[8].replace(0, 4, le<int32_t>(4));
    expect_parse_error(write_stream("bad_list_view.arrows", bad),
                       "column 'l': a list view of 2 items at 4 past its 5 items");
  }
  {
    Batch4 bad;  // ll's second list of -2 items
    bad.buffers[14].replace(8, 8, le<int64_t>(-2));
    expect_parse_error(write_stream("bad_size.arrows", bad), "column 'll': a list view of -2");
  }
}

}  // namespace
}  // namespace ember
