// The Arrow C Stream Interface import: arrays built here by hand, as a producer (pyarrow, polars,
// DuckDB) hands them over, in every format the IPC reader reads; offsets (sliced arrays) at
// every level; dictionaries, nested too; and the formats ember refuses, each an InvalidArgument
// naming the column.
#include "io/arrow/arrow_c_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember {
namespace {

template <class T>
std::string le(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

std::string bits(std::initializer_list<bool> values) {
  std::string out((values.size() + 7) / 8, '\0');
  size_t i = 0;
  for (bool b : values) {
    if (b) out[i / 8] = char(out[i / 8] | (1 << (i % 8)));
    ++i;
  }
  return out;
}

/// One array with its schema, owning every byte they point at. `buffers` holds the bytes of
/// each buffer; std::nullopt is an absent (null) buffer.
struct Node {
  std::string format, name;
  int64_t length = 0, null_count = 0, offset = 0;
  std::vector<std::optional<std::string>> buffers;
  std::vector<const void*> raw;  ///< when set, the buffers' addresses instead (memory not owned)
  std::vector<std::shared_ptr<Node>> children;
  std::shared_ptr<Node> dictionary;

  ArrowSchema schema{};
  ArrowArray array{};
  std::vector<const void*> pointers;
  std::vector<ArrowSchema*> schema_children;
  std::vector<ArrowArray*> array_children;

  /// Points the C structs at the members (children first); the structs' release only marks
  /// them released, the Node owns the memory.
  void wire() {
    pointers.clear();
    for (const auto& b : buffers) pointers.push_back(b ? b->data() : nullptr);
    if (!raw.empty()) pointers = raw;
    schema_children.clear();
    array_children.clear();
    for (const auto& c : children) {
      c->wire();
      schema_children.push_back(&c->schema);
      array_children.push_back(&c->array);
    }
    if (dictionary) dictionary->wire();
    schema = {format.c_str(),
              name.c_str(),
              nullptr,
              ARROW_FLAG_NULLABLE,
              int64_t(children.size()),
              schema_children.data(),
              dictionary ? &dictionary->schema : nullptr,
              [](ArrowSchema* s) { s->release = nullptr; },
              nullptr};
    array = {length,
             null_count,
             offset,
             int64_t(pointers.size()),
             int64_t(children.size()),
             pointers.data(),
             array_children.data(),
             dictionary ? &dictionary->array : nullptr,
             [](ArrowArray* a) { a->release = nullptr; },
             nullptr};
  }
};

using NodePtr = std::shared_ptr<Node>;

NodePtr node(std::string format, int64_t length, std::vector<std::optional<std::string>> buffers,
             std::vector<NodePtr> children = {}, int64_t null_count = 0) {
  auto n = std::make_shared<Node>();
  n->format = std::move(format);
  n->length = length;
  n->null_count = null_count;
  n->buffers = std::move(buffers);
  n->children = std::move(children);
  return n;
}

NodePtr named(std::string name, NodePtr n) {
  n->name = std::move(name);
  return n;
}

/// A stream of `batches` (each a struct array of the columns) handed out one by one. As the
/// interface asks, a batch handed out keeps its memory until the consumer releases it (which
/// `releases` counts), whether or not the stream is still there.
struct Stream {
  std::vector<NodePtr> batches;
  size_t next = 0;
  std::shared_ptr<int> releases = std::make_shared<int>(0);

  struct Held {
    NodePtr batch;
    std::shared_ptr<int> releases;
  };

  ArrowArrayStream c_stream() {
    for (auto& b : batches) b->wire();
    ArrowArrayStream s{};
    s.private_data = this;
    s.get_schema = [](ArrowArrayStream* self, ArrowSchema* out) {
      *out = static_cast<Stream*>(self->private_data)->batches.at(0)->schema;
      return 0;
    };
    s.get_next = [](ArrowArrayStream* self, ArrowArray* out) {
      auto* me = static_cast<Stream*>(self->private_data);
      if (me->next == me->batches.size()) {
        out->release = nullptr;
      } else {
        const NodePtr& batch = me->batches[me->next++];
        *out = batch->array;
        out->private_data = new Held{batch, me->releases};
        out->release = [](ArrowArray* a) {
          auto* held = static_cast<Held*>(a->private_data);
          ++*held->releases;
          delete held;
          a->release = nullptr;
        };
      }
      return 0;
    };
    s.get_last_error = [](ArrowArrayStream*) -> const char* { return nullptr; };
    s.release = [](ArrowArrayStream* self) { self->release = nullptr; };
    return s;
  }
};

Table import(std::vector<NodePtr> columns, int64_t length, int64_t offset = 0) {
  Stream stream;
  auto batch = node("+s", length, {std::nullopt}, std::move(columns));
  batch->offset = offset;
  stream.batches.push_back(batch);
  ArrowArrayStream s = stream.c_stream();
  return arrow_ipc::import_c_stream(&s);
}

std::vector<std::string> values(const Table& t, const std::string& column) {
  std::vector<std::string> out;
  const Column c = t.column(column);
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(ember::to_string(c.get(i)));
  return out;
}

int64_t micros(const Table& t, const std::string& column) {
  return std::get<Timestamp>(t.column(column).get(0)).micros;
}

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ArrowCImport, SmallAndUnsignedIntegersWidenAsTheIpcReaderWidensThem) {
  const Table t = import(
      {named("i8", node("c", 3, {bits({1, 1, 0}), le<int8_t>({-128, 5, 0})}, {}, 1)),
       named("u8", node("C", 3, {std::nullopt, le<uint8_t>({255, 0, 1})})),
       named("i16", node("s", 3, {std::nullopt, le<int16_t>({-32768, 1, 2})})),
       named("u16", node("S", 3, {std::nullopt, le<uint16_t>({65535, 1, 2})})),
       named("u32", node("I", 3, {std::nullopt, le<uint32_t>({4294967295u, 1, 2})})),
       named("u64", node("L", 3, {std::nullopt, le<uint64_t>({uint64_t{INT64_MAX}, 1, 2})}))},
      3);
  EXPECT_EQ(t.schema().to_string(),
            "i8: int32, u8: int32, i16: int32, u16: int32, u32: int64, u64: int64");
  EXPECT_THAT(values(t, "i8"), ElementsAre("-128", "5", "null"));
  EXPECT_THAT(values(t, "u8"), ElementsAre("255", "0", "1"));
  EXPECT_THAT(values(t, "i16"), ElementsAre("-32768", "1", "2"));
  EXPECT_THAT(values(t, "u16"), ElementsAre("65535", "1", "2"));
  EXPECT_THAT(values(t, "u32"), ElementsAre("4294967295", "1", "2"));
  EXPECT_THAT(values(t, "u64"), ElementsAre("9223372036854775807", "1", "2"));
  try {
    import({named("big", node("L", 1, {std::nullopt, le<uint64_t>({uint64_t{1} << 63})}))}, 1);
    FAIL() << "a uint64 past int64 was read";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("column 'big'"));
    EXPECT_THAT(e.what(), HasSubstr("9223372036854775808 does not fit in int64"));
  }
}

TEST(ArrowCImport, HalfFloatsDecimalsAndFixedSizeBinary) {
  const Table u = import(
      {named("h", node("e", 3, {std::nullopt, le<uint16_t>({0x3C00, 0xC000, 0x7C00})})),
       named("d", node("d:10,2", 2, {std::nullopt, le<int64_t>({12345, 0, -1, -1})})),
       named("d256",
             node("d:40,1,256", 2, {std::nullopt, le<int64_t>({-15, -1, -1, -1, 7, 0, 0, 0})})),
       named("w", node("w:3", 2, {std::nullopt, std::string("abcdef")}))},
      2);
  EXPECT_EQ(u.schema().to_string(), "h: float32, d: float64, d256: float64, w: binary");
  EXPECT_EQ(u.column("h").value<float>(0), 1.0f);
  EXPECT_EQ(u.column("h").value<float>(1), -2.0f);
  EXPECT_EQ(u.column("d").value<double>(0), 123.45);
  EXPECT_EQ(u.column("d").value<double>(1), -0.01);
  EXPECT_EQ(u.column("d256").value<double>(0), -1.5);
  EXPECT_EQ(u.column("d256").value<double>(1), 0.7);
  EXPECT_EQ(u.column("w").value<std::string>(0), "abc");
  EXPECT_EQ(u.column("w").value<std::string>(1), "def");
}

TEST(ArrowCImport, DatesTimesTimestampsAndDurationsInEmbersUnits) {
  const Table t =
      import({named("ts_s", node("tss:Europe/Paris", 1, {std::nullopt, le<int64_t>({2})})),
              named("ts_ns", node("tsn:", 1, {std::nullopt, le<int64_t>({1500})})),
              named("date64", node("tdm", 1, {std::nullopt, le<int64_t>({86400000})})),
              named("date32", node("tdD", 1, {std::nullopt, le<int32_t>({19000})})),
              named("t32", node("tts", 1, {std::nullopt, le<int32_t>({3600})})),
              named("t64", node("ttn", 1, {std::nullopt, le<int64_t>({2000})})),
              named("dur", node("tDm", 1, {std::nullopt, le<int64_t>({5})}))},
             1);
  EXPECT_EQ(t.schema().to_string(),
            "ts_s: timestamp[us], ts_ns: timestamp[us], date64: timestamp[us], date32: date32, "
            "t32: int64, t64: int64, dur: int64");
  EXPECT_EQ(micros(t, "ts_s"), 2000000);
  EXPECT_EQ(micros(t, "ts_ns"), 1);
  EXPECT_EQ(micros(t, "date64"), 86400000000);
  EXPECT_EQ(std::get<Date>(t.column("date32").get(0)).days, 19000);
  EXPECT_EQ(t.column("t32").value<int64_t>(0), 3600000000);
  EXPECT_EQ(t.column("t64").value<int64_t>(0), 2);
  EXPECT_EQ(t.column("dur").value<int64_t>(0), 5000);
}

TEST(ArrowCImport, LargeAndViewStringsAndLists) {
  const std::string long_value = "a value longer than twelve bytes";
  std::string view_long =
      le<int32_t>({int32_t(long_value.size())}) + long_value.substr(0, 4) + le<int32_t>({0, 3});
  std::string view_short = le<int32_t>({5}) + "short" + std::string(7, '\0');
  const Table t = import(
      {named("U", node("U", 3, {std::nullopt, le<int64_t>({0, 3, 3, 8}), std::string("abcdefgh")})),
       named("Z", node("Z", 3, {std::nullopt, le<int64_t>({0, 1, 2, 2}), std::string("xy")})),
       named("vu", node("vu", 3,
                        {bits({1, 0, 1}), view_short + std::string(16, '\0') + view_long,
                         "xyz" + long_value, le<int64_t>({int64_t(long_value.size() + 3)})},
                        {}, 1)),
       named("L", node("+L", 3, {std::nullopt, le<int64_t>({0, 2, 2, 3})},
                       {node("i", 3, {std::nullopt, le<int32_t>({1, 2, 3})})})),
       // Out of order and shared ranges: [3], [1, 2], [1, 2, 3].
       named("vl", node("+vl", 3, {std::nullopt, le<int32_t>({2, 0, 0}), le<int32_t>({1, 2, 3})},
                        {node("i", 3, {std::nullopt, le<int32_t>({1, 2, 3})})}))},
      3);
  EXPECT_EQ(t.schema().to_string(),
            "U: utf8, Z: binary, vu: utf8, L: list<int32>, vl: list<int32>");
  EXPECT_THAT(values(t, "U"), ElementsAre("abc", "", "defgh"));
  EXPECT_EQ(t.column("Z").value<std::string>(1), "y");
  EXPECT_EQ(t.column("vu").value<std::string>(0), "short");
  EXPECT_TRUE(t.column("vu").is_null(1));
  EXPECT_EQ(t.column("vu").value<std::string>(2), long_value);
  EXPECT_THAT(values(t, "L"), ElementsAre("[1, 2]", "[]", "[3]"));
  EXPECT_THAT(values(t, "vl"), ElementsAre("[3]", "[1, 2]", "[1, 2, 3]"));
}

TEST(ArrowCImport, OffsetsOfSlicedArraysApplyAtEveryLevel) {
  // Each column is a slice: its own offset, then the batch's offset of 1 on top.
  auto ints = node("i", 3, {bits({1, 1, 0, 1, 1}), le<int32_t>({9, 9, 7, 8, 6})}, {}, -1);
  ints->offset = 2;  // rows null, 8, 6
  auto strings =
      node("u", 2, {std::nullopt, le<int32_t>({0, 1, 3, 6, 10}), std::string("abbcccdddd")});
  strings->offset = 1;
  strings->length = 3;  // "bb", "ccc", "dddd"
  auto items = node("i", 4, {std::nullopt, le<int32_t>({0, 1, 2, 3, 4})});
  items->offset = 1;                                                               // 1, 2, 3, 4
  auto lists = node("+l", 3, {std::nullopt, le<int32_t>({0, 1, 3, 4})}, {items});  // [1] [2 3] [4]
  auto fields = node("+s", 4, {bits({1, 0, 1, 1})},
                     {named("a", node("i", 4, {std::nullopt, le<int32_t>({1, 2, 3, 4})}))}, -1);
  fields->offset = 1;
  fields->length = 3;  // null, {a: 3}, {a: 4}
  const Table t = import({named("ints", ints), named("strings", strings), named("lists", lists),
                          named("fields", fields)},
                         2, 1);
  EXPECT_THAT(values(t, "ints"), ElementsAre("8", "6"));
  EXPECT_THAT(values(t, "strings"), ElementsAre("ccc", "dddd"));
  EXPECT_THAT(values(t, "lists"), ElementsAre("[2, 3]", "[4]"));
  EXPECT_THAT(values(t, "fields"), ElementsAre("{'a': 3}", "{'a': 4}"));
  EXPECT_EQ(t.column("ints").null_count(), 0);
}

TEST(ArrowCImport, DictionariesAreDecodedAtAnyDepth) {
  auto words = node("c", 4, {bits({1, 1, 1, 0}), le<int8_t>({1, 0, 1, 0})}, {}, 1);
  words->dictionary = node("u", 2, {std::nullopt, le<int32_t>({0, 1, 3}), std::string("xyy")});
  // A struct whose field is dictionary-encoded with uint16 indices.
  auto inner = node("S", 4, {std::nullopt, le<uint16_t>({0, 0, 1, 1})});
  inner->name = "k";
  inner->dictionary = node("l", 2, {std::nullopt, le<int64_t>({-5, 50})});
  auto fields = node("+s", 4, {std::nullopt}, {inner});
  const Table t = import({named("w", words), named("s", fields)}, 4);
  EXPECT_EQ(t.schema().to_string(), "w: utf8, s: struct<k: int64>");
  EXPECT_THAT(values(t, "w"), ElementsAre("yy", "x", "yy", "null"));
  EXPECT_THAT(values(t, "s"), ElementsAre("{'k': -5}", "{'k': -5}", "{'k': 50}", "{'k': 50}"));
}

void expect_refused(NodePtr column, const std::string& message) {
  try {
    const Table t = import({named("c", std::move(column))}, 1);
    FAIL() << "read as " << t.to_string();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("column 'c'")) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(message)) << e.what();
  }
}

TEST(ArrowCImport, UnionsIntervalsAndMalformedArraysAreInvalidArgumentsNamingTheColumn) {
  expect_refused(node("+ud:0,1", 1, {std::nullopt, std::nullopt},
                      {node("i", 1, {std::nullopt, le<int32_t>({1})}),
                       node("u", 1, {std::nullopt, le<int32_t>({0, 0}), std::string()})}),
                 "format '+ud:0,1' (a union)");
  expect_refused(node("tiM", 1, {std::nullopt, le<int32_t>({1})}), "format 'tiM' (an interval)");
  expect_refused(node("+r", 1, {}), "(run-end encoded)");
  expect_refused(node("?", 1, {}), "format '?' (an unknown format)");
  expect_refused(node("w:x", 1, {}), "a malformed Arrow format");
  expect_refused(node("i", 1, {std::nullopt}), "too few buffers");
  expect_refused(node("+l", 1, {std::nullopt, le<int32_t>({0, 1})}), "not one child");
  expect_refused(node("u", 1, {std::nullopt, le<int32_t>({0, -4}), std::string("ab")}),
                 "offsets decrease");
}

TEST(ArrowCImport, BuffersInEmbersLayoutAreBorrowedUntilTheLastColumnGoes) {
  // Eight int64 values fill 64 bytes: 64-byte aligned they need no padding, so ember borrows
  // them. The same values 8 bytes further on are copied.
  std::unique_ptr<int64_t, decltype(&std::free)> memory(
      static_cast<int64_t*>(std::aligned_alloc(64, 192)), &std::free);
  int64_t* aligned = memory.get();
  int64_t* misaligned = memory.get() + 9;
  for (int i = 0; i < 8; ++i) aligned[i] = misaligned[i] = 10 * i;
  auto lent = named("lent", node("l", 8, {}));
  lent->raw = {nullptr, aligned};
  auto copied = named("copied", node("l", 8, {}));
  copied->raw = {nullptr, misaligned};
  Stream stream;
  stream.batches.push_back(node("+s", 8, {std::nullopt}, {lent, copied}));
  ArrowArrayStream s = stream.c_stream();
  std::optional<Table> t = arrow_ipc::import_c_stream(&s);
  EXPECT_EQ(t->column("lent").values<int64_t>(), aligned);
  EXPECT_NE(t->column("copied").values<int64_t>(), misaligned);
  EXPECT_THAT(values(*t, "copied"), ElementsAre("0", "10", "20", "30", "40", "50", "60", "70"));
  // The batch stays the producer's until no column borrows from it.
  Column kept = t->column("lent").slice(2, 3);
  t.reset();
  EXPECT_EQ(*stream.releases, 0);
  EXPECT_EQ(ember::to_string(kept.get(0)), "20");
  kept = Column();
  EXPECT_EQ(*stream.releases, 1);

  // A batch that lends nothing is released as soon as it is read.
  Stream other;
  copied->raw = {nullptr, misaligned};
  other.batches.push_back(node("+s", 8, {std::nullopt}, {copied}));
  ArrowArrayStream o = other.c_stream();
  const Table copy = arrow_ipc::import_c_stream(&o);
  EXPECT_EQ(*other.releases, 1);
  EXPECT_THAT(values(copy, "copied"), ElementsAre("0", "10", "20", "30", "40", "50", "60", "70"));
}

}  // namespace
}  // namespace ember
