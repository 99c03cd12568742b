// Batches as one message between ranks: Arrow buffers behind the control fields, wrapped again
// without a copy on arrival, nulls, offsets and strings intact.
#include "dist/batch_message.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace ember::dist {
namespace {

/// `bytes` as they would arrive: in a fresh region (where the transport receives them).
std::shared_ptr<process::SharedMapping> arrive(std::string_view bytes) {
  auto region = process::SharedRegion::create("test-arrival", bytes.size());
  std::memcpy(region.map->data(), bytes.data(), bytes.size());
  return region.map;
}

TEST(BatchMessage, ColumnsSurviveTheTripWithNullsAndSlices) {
  Column ints = Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, 3, 4, 5});
  Column words = Column::from(
      std::vector<std::optional<std::string>>{"a", "bb", std::nullopt, "dddd", "", "ff"});
  Column sliced = words.slice(1, 5);  // a non-zero offset must travel too
  Column flags = Column::from(std::vector<bool>{true, false, true, true, false});
  process::MessageWriter head;
  head.begin(process::Op::Call);
  head.put(uint64_t{42});
  head.put(int64_t{5});
  const MessageBuffer packed = pack_columns(head, {ints, sliced, flags}, {"x", "w", "f"});
  auto map = arrive(packed.view());
  process::MessageReader in(
      std::string_view(reinterpret_cast<const char*>(map->data()), packed.size()));
  EXPECT_EQ(in.header().op, process::Op::Call);
  EXPECT_EQ(in.get<uint64_t>(), 42u);
  const auto rows = in.get<int64_t>();
  Batch batch = to_batch(unpack_columns(in, map), rows);
  ASSERT_EQ(batch.num_rows(), 5);
  ASSERT_EQ(batch.num_columns(), 3);
  EXPECT_EQ(batch.schema().field(1).name, "w");
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(batch.column(0).is_null(i), ints.is_null(i));
    if (!ints.is_null(i)) {
      EXPECT_EQ(batch.column(0).value<int64_t>(i), ints.value<int64_t>(i));
    }
    EXPECT_EQ(batch.column(1).is_null(i), sliced.is_null(i)) << i;
    if (!sliced.is_null(i)) {
      EXPECT_EQ(batch.column(1).value<std::string_view>(i), sliced.value<std::string_view>(i));
    }
    EXPECT_EQ(batch.column(2).value<bool>(i), flags.value<bool>(i));
  }
}

TEST(BatchMessage, ABatchOfNoColumnsKeepsItsRows) {
  process::MessageWriter head;
  head.begin(process::Op::Call);
  const MessageBuffer packed = pack_columns(head, {}, {});
  auto map = arrive(packed.view());
  process::MessageReader in(
      std::string_view(reinterpret_cast<const char*>(map->data()), packed.size()));
  EXPECT_EQ(to_batch(unpack_columns(in, map), 7).num_rows(), 7);
}

/// A gathered message's bytes, as the receiver gets them.
std::string flatten(const GatherMessage& m) {
  std::string out = m.head;
  for (const GatherMessage::Piece& p : m.pieces)
    out.append(static_cast<const char*>(p.data), p.size);
  return out;
}

TEST(BatchMessage, AGatheredMessageIsThePackedOneWithoutTheCopy) {
  Column ints = Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, 3, 4, 5, 6});
  Column words = Column::from(
      std::vector<std::optional<std::string>>{"a", "bb", std::nullopt, "dddd", "", "ff", "g"});
  Column flags = Column::from(std::vector<bool>{true, false, true, true, false, true, false});
  Column halves = Column::from(std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5});
  process::MessageWriter head;
  head.begin(process::Op::Result);
  head.put(uint64_t{7});
  // Slices at odd offsets: bitmaps keep their bit offset, string offsets are rebased.
  const std::vector<Column> columns{ints.slice(1, 5), words.slice(3, 4), flags.slice(2, 5), halves,
                                    words};
  const std::vector<std::string> names{"i", "w", "f", "h", "all"};
  const MessageBuffer packed = pack_columns(head, columns, names);
  const GatherMessage gathered = gather_columns(head, columns, names);
  EXPECT_EQ(gathered.size(), packed.size());
  EXPECT_EQ(flatten(gathered), std::string(packed.view()));
  // The large buffers are sent from where the columns hold them, not from a copy.
  bool from_column = false;
  for (const GatherMessage::Piece& p : gathered.pieces)
    from_column = from_column || p.data == static_cast<const void*>(halves.values<double>());
  EXPECT_TRUE(from_column);
}

TEST(BatchMessage, ATruncatedMessageIsAnErrorNotAReadPastItsEnd) {
  process::MessageWriter head;
  head.begin(process::Op::Call);
  const MessageBuffer packed =
      pack_columns(head, {Column::from(std::vector<int64_t>{1, 2})}, {"x"});
  auto map = arrive(packed.view());
  // Cut inside the descriptors: the reader checks every length.
  process::MessageReader in(std::string_view(reinterpret_cast<const char*>(map->data()), 40));
  EXPECT_THROW(unpack_columns(in, map), Error);
}

/// struct<id: int64, tags: list<utf8>>, map<utf8, int64> and list<list<int64>> rows with nulls at
/// every level.
std::vector<Column> nested_columns(int64_t n) {
  const DataType s = struct_({{"id", int64()}, {"tags", list(utf8())}});
  const DataType m = map(utf8(), int64());
  const DataType l = list(list(int64()));
  ColumnBuilder sb(s), mb(m), lb(l);
  for (int64_t i = 0; i < n; ++i) {
    List tags{{}, utf8()}, entries{{}, m.element()}, outer{{}, list(int64())};
    for (int64_t k = 0; k < i % 3; ++k) {
      tags.items.push_back(k == 1 ? Value{} : Value{std::string(size_t(k + 1), 't')});
      Struct entry;
      entry.fields = {{"key", Value{"k" + std::to_string(k)}},
                      {"value", k == 1 ? Value{} : Value{i * k}}};
      entries.items.emplace_back(entry);
      outer.items.push_back(k == 0 ? Value{} : Value{List{{Value{i}, Value{}}, int64()}});
    }
    Struct row;
    row.fields = {{"id", i % 4 == 1 ? Value{} : Value{i}},
                  {"tags", i % 5 == 2 ? Value{} : Value{tags}}};
    sb.append_value(i % 6 == 3 ? Value{} : Value{row});
    mb.append_value(i % 7 == 3 ? Value{} : Value{entries});
    lb.append_value(i % 8 == 3 ? Value{} : Value{outer});
  }
  return {sb.finish(), mb.finish(), lb.finish()};
}

TEST(BatchMessage, StructMapAndNestedListColumnsTravelPackedAndGathered) {
  std::vector<Column> columns{Column::from(std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9})};
  for (const Column& c : nested_columns(40)) columns.push_back(c.slice(11, 9));  // odd offset
  const std::vector<std::string> names{"x", "s", "m", "l"};
  process::MessageWriter head;
  head.begin(process::Op::Call);
  head.put(int64_t{9});
  const MessageBuffer packed = pack_columns(head, columns, names);
  const GatherMessage gathered = gather_columns(head, columns, names);
  EXPECT_EQ(flatten(gathered), std::string(packed.view()));
  auto map = arrive(packed.view());
  process::MessageReader in(
      std::string_view(reinterpret_cast<const char*>(map->data()), packed.size()));
  const auto rows = in.get<int64_t>();
  Batch batch = to_batch(unpack_columns(in, map), rows);
  ASSERT_EQ(batch.num_columns(), 4);
  for (int c = 0; c < 4; ++c) {
    SCOPED_TRACE(names[size_t(c)]);
    EXPECT_EQ(batch.schema().field(c).type, columns[size_t(c)].type());
    ASSERT_EQ(batch.column(c).size(), 9);
    for (int64_t i = 0; i < 9; ++i)
      EXPECT_EQ(batch.column(c).get(i), columns[size_t(c)].get(i)) << i;
  }
}

}  // namespace
}  // namespace ember::dist
