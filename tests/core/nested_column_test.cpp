// The types beyond the first four: int32, float32, binary, timestamps, list(T) and
// fixed_size_list(T, n) with nulls at both levels, through every Column operation.
#include <gtest/gtest.h>

#include "core/column_take.h"
#include "core/timestamp_text.h"
#include "ember/column.h"

namespace ember {
namespace {

using Items = std::vector<std::optional<std::string>>;

Column tags() {
  return Column::from(std::vector<std::optional<Items>>{
      Items{"a", std::nullopt, "bc"}, std::nullopt, Items{}, Items{"d"}, Items{"e", "f"}});
}

List list_of(std::vector<Value> items, DataType element) { return List{std::move(items), element}; }

TEST(NestedColumn, ListFromVectorsKeepsNullsAtBothLevels) {
  const Column c = tags();
  EXPECT_EQ(c.type(), list(utf8()));
  EXPECT_EQ(c.size(), 5);
  EXPECT_EQ(c.null_count(), 1);
  EXPECT_TRUE(c.is_null(1));
  EXPECT_EQ(c.get(0), Value(list_of({std::string("a"), Value{}, std::string("bc")}, utf8())));
  EXPECT_EQ(c.list(2).size(), 0);
  const Column first = c.list(0);  // a zero-copy slice of the items
  EXPECT_EQ(first.size(), 3);
  EXPECT_TRUE(first.is_null(1));
  EXPECT_EQ(first.value<std::string_view>(2), "bc");
  EXPECT_EQ(first.values_buffer().get(), c.child().values_buffer().get());
  EXPECT_EQ(to_string(c.get(0)), "[\"a\", null, \"bc\"]");
}

TEST(NestedColumn, SliceConcatFilterAndTakeAgreeWithGet) {
  const Column c = tags();
  const Column s = c.slice(2, 3);
  ASSERT_EQ(s.size(), 3);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(s.get(i), c.get(i + 2));
  const Column joined = Column::concat({c.slice(3, 2), c.slice(0, 2)});
  EXPECT_EQ(joined.get(0), c.get(3));
  EXPECT_EQ(joined.get(2), c.get(0));
  EXPECT_TRUE(joined.is_null(3));
  const Column mask = Column::from(std::vector<bool>{true, false, false, true, true});
  const Column kept = c.filter(mask);
  ASSERT_EQ(kept.size(), 3);
  EXPECT_EQ(kept.get(0), c.get(0));
  EXPECT_EQ(kept.get(2), c.get(4));
  EXPECT_EQ(kept.child().size(), 6) << "only the kept rows' items remain";
  const Column taken = take_rows(c, {4, 4, 1});
  EXPECT_EQ(taken.get(1), c.get(4));
  EXPECT_TRUE(taken.is_null(2));
}

TEST(NestedColumn, FixedSizeListsAreEmbeddings) {
  ColumnBuilder b(fixed_size_list(float32(), 3));
  b.append_value(list_of({1.0f, 2.0f, 3.0f}, float32()));
  b.append_null();
  b.append_value(list_of({4.0f, Value{}, 6.0f}, float32()));
  EXPECT_THROW(b.append_value(list_of({1.0f}, float32())), InvalidArgument);
  const Column c = b.finish();
  EXPECT_EQ(c.type().to_string(), "fixed_size_list<float32, 3>");
  EXPECT_EQ(c.child().size(), 9);
  EXPECT_TRUE(c.is_null(1));
  EXPECT_EQ(c.list(2).value<float>(2), 6.0f);
  EXPECT_TRUE(c.list(2).is_null(1));
  const Column tail = c.slice(1, 2);
  EXPECT_EQ(tail.list_range(1), (std::pair<int64_t, int64_t>{6, 9}));
  const Column both = Column::concat({tail, c.slice(0, 1)});
  EXPECT_EQ(both.get(2), c.get(0));
  EXPECT_EQ(both.get(1), c.get(2));
  const Column kept = c.filter(Column::from(std::vector<bool>{false, true, true}));
  EXPECT_EQ(kept.get(1), c.get(2));
  EXPECT_EQ(Column::nulls(c.type(), 2).child().size(), 6);
}

TEST(NestedColumn, ScalarTypesHoldTheirValues) {
  const Column i = Column::from(std::vector<std::optional<int32_t>>{7, std::nullopt, -3});
  EXPECT_EQ(i.type(), int32());
  EXPECT_EQ(i.value<int32_t>(2), -3);
  EXPECT_EQ(i.get(0), Value(int64_t{7}));
  EXPECT_THROW(i.value<int64_t>(0), TypeError);
  const Column f = Column::from(std::vector<float>{1.5f, -2.25f});
  EXPECT_EQ(f.get(1), Value(-2.25f));
  const Column b = Column::from(std::vector<std::vector<uint8_t>>{{0, 255, 10}, {}});
  EXPECT_EQ(b.type(), binary());
  EXPECT_EQ(b.get(0), Value(std::vector<uint8_t>{0, 255, 10}));
  EXPECT_EQ(to_string(b.get(0)), "0x00ff0a");
  const Column t = Column::from(std::vector<Timestamp>{{0}, {1709294400250000}});
  EXPECT_EQ(to_string(t.get(1)), "2024-03-01 12:00:00.250000");
  EXPECT_EQ(Column::concat({i, i.slice(1, 2)}).get(4), Value(int64_t{-3}));
  EXPECT_EQ(i.filter(Column::from(std::vector<bool>{false, true, true})).get(1),
            Value(int64_t{-3}));
  EXPECT_EQ(Column::repeat(Value(2.5f), float32(), 3).get(2), Value(2.5f));
  EXPECT_EQ(Column::repeat(Value(int64_t{4}), int32(), 2).value<int32_t>(1), 4);
}

TEST(NestedColumn, TimestampsParseAndPrintInUtc) {
  EXPECT_EQ(parse_timestamp("1970-01-01"), 0);
  EXPECT_EQ(parse_timestamp("2024-03-01T12:00:00.25Z"), 1709294400250000);
  EXPECT_EQ(parse_timestamp("1969-12-31 23:59:59"), -1000000);
  EXPECT_EQ(format_timestamp(-1000000), "1969-12-31 23:59:59");
  EXPECT_FALSE(parse_timestamp("2024-13-01"));
  EXPECT_FALSE(parse_timestamp("yesterday"));
}

TEST(NestedColumn, TypesNameThemselvesAndCompare) {
  EXPECT_EQ(fixed_size_list(float32(), 384), fixed_size_list(float32(), 384));
  EXPECT_NE(fixed_size_list(float32(), 384), fixed_size_list(float32(), 383));
  EXPECT_NE(fixed_size_list(float32(), 3), list(float32()));
  EXPECT_EQ(timestamp_us().to_string(), "timestamp[us]");
  EXPECT_THROW(fixed_size_list(int32(), 0), InvalidArgument);
  EXPECT_EQ(type_of(Value(list_of({int64_t{1}}, DataType()))), list(int64()));
}

// take_rows gathers text and fixed-width columns straight into buffers: nulls, repeats, a
// sliced source and empty values come out as row-by-row appends would make them.
TEST(TakeRows, TextAndFixedWidthMatchRowByRow) {
  const Column text =
      Column::from(std::vector<std::optional<std::string>>{"skip", "a", std::nullopt, "",
                                                           "a longer value than sixteen", "zz"})
          .slice(1, 5);
  const Column nums =
      Column::from(std::vector<std::optional<int32_t>>{9, 1, std::nullopt, 3, 4, 5}).slice(1, 5);
  const std::vector<int64_t> rows = {3, 0, 1, 3, 2, 4, 1};
  for (const Column* c : {&text, &nums}) {
    const Column got = take_rows(*c, rows);
    ColumnBuilder want(c->type());
    for (int64_t r : rows) want.append_from(*c, r);
    const Column w = want.finish();
    ASSERT_EQ(got.size(), w.size());
    EXPECT_EQ(got.null_count(), w.null_count());
    for (int64_t i = 0; i < w.size(); ++i) EXPECT_EQ(got.get(i), w.get(i)) << "row " << i;
  }
  EXPECT_EQ(take_rows(text, {}).size(), 0);
}

}  // namespace
}  // namespace ember
