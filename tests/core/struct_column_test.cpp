// Struct and map columns: types, building from values and children, zero-copy fields with the
// struct's nulls applied, slices at odd offsets, concat, filter, take and the printed values.
#include <gtest/gtest.h>

#include <random>

#include "core/column_take.h"
#include "ember/column.h"

namespace ember {
namespace {

using Rows = std::vector<Value>;

Rows rows_of(const Column& c) {
  Rows out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.get(i));
  return out;
}

DataType image_type() { return struct_({{"bytes", binary()}, {"path", utf8()}}); }

// struct<id: int64, tags: list<utf8>, inner: struct<x: float64>> with nulls at every level.
DataType deep_type() {
  return struct_({{"id", int64()}, {"tags", list(utf8())}, {"inner", struct_({{"x", float64()}})}});
}

Rows deep_rows(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Rows out;
  for (int64_t i = 0; i < n; ++i) {
    if (rng() % 7 == 0) {
      out.emplace_back();
      continue;
    }
    Struct s;
    s.fields.emplace_back("id", rng() % 5 == 0 ? Value{} : Value{int64_t(i)});
    List tags;
    tags.element = utf8();
    for (uint32_t k = rng() % 4; k > 0; --k)
      tags.items.push_back(rng() % 6 == 0 ? Value{} : Value{std::string(k, 'a' + char(i % 26))});
    s.fields.emplace_back("tags", rng() % 9 == 0 ? Value{} : Value{tags});
    Struct inner;
    inner.fields.emplace_back("x", rng() % 4 == 0 ? Value{} : Value{double(i) / 2});
    s.fields.emplace_back("inner", rng() % 8 == 0 ? Value{} : Value{inner});
    out.emplace_back(std::move(s));
  }
  return out;
}

Column build(const DataType& type, const Rows& rows) {
  ColumnBuilder b(type);
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

TEST(StructTypeTest, NamesFieldsAndEquality) {
  DataType t = image_type();
  EXPECT_EQ(t.id(), TypeId::Struct);
  EXPECT_EQ(t.to_string(), "struct<bytes: binary, path: utf8>");
  EXPECT_EQ(t.field_index("path"), 1);
  EXPECT_EQ(t.field_index("nope"), -1);
  EXPECT_EQ(t, image_type());
  EXPECT_NE(t, struct_({{"bytes", binary()}, {"path", binary()}}));
  EXPECT_NE(t, struct_({{"path", utf8()}, {"bytes", binary()}}));
  EXPECT_THROW(struct_({{"a", int64()}, {"a", utf8()}}), InvalidArgument);
  EXPECT_THROW(struct_({{"", int64()}}), InvalidArgument);
  EXPECT_TRUE(t.is_nested());
  EXPECT_FALSE(t.is_list());

  DataType m = map(utf8(), int64());
  EXPECT_EQ(m.to_string(), "map<utf8, int64>");
  EXPECT_TRUE(m.is_list());
  EXPECT_TRUE(m.has_list_offsets());
  EXPECT_EQ(m.element(), struct_({{"key", utf8()}, {"value", int64()}}));
  EXPECT_NE(m, list(m.element()));
  EXPECT_EQ(list(list(list(int32()))).to_string(), "list<list<list<int32>>>");
}

TEST(StructColumnTest, StructOfSharesChildrenAndFieldIsZeroCopy) {
  Column bytes = Column::from(std::vector<std::vector<uint8_t>>{{1, 2}, {}, {3}});
  Column path = Column::from(std::vector<std::optional<std::string>>{"a.png", std::nullopt, "c"});
  Column s = Column::struct_of({{"bytes", bytes}, {"path", path}});
  EXPECT_EQ(s.type(), image_type());
  EXPECT_EQ(s.size(), 3);
  EXPECT_EQ(s.null_count(), 0);
  EXPECT_EQ(s.field("path").values_buffer(), path.values_buffer());
  EXPECT_EQ(rows_of(s.field(1)), rows_of(path));
  EXPECT_EQ(to_string(s.get(0)), "{'bytes': 0x0102, 'path': \"a.png\"}");
  EXPECT_EQ(to_string(s.get(1)), "{'bytes': 0x, 'path': null}");
  EXPECT_EQ(type_of(s.get(0)), image_type());
  try {
    s.field("size");
    FAIL() << "expected an error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("its fields: bytes, path"), std::string::npos);
  }
  EXPECT_THROW(path.field("x"), TypeError);
  EXPECT_THROW(Column::struct_of({{"a", Column::from(std::vector<int64_t>{1})},
                                  {"b", Column::from(std::vector<int64_t>{1, 2})}}),
               InvalidArgument);
}

TEST(StructColumnTest, BuilderRoundTripsNestedNulls) {
  const Rows ref = deep_rows(1000, 1);
  Column c = build(deep_type(), ref);
  EXPECT_EQ(rows_of(c), ref);
  int64_t nulls = 0;
  for (const Value& v : ref) nulls += v.index() == 0;
  EXPECT_EQ(c.null_count(), nulls);
  // A field of a null struct is null; otherwise the field's own value.
  Column inner_x = c.field("inner").field("x");
  for (int64_t i = 0; i < c.size(); ++i) {
    const Value& row = ref[size_t(i)];
    Value expected;
    if (row.index() != 0) {
      const Value& inner = std::get<Struct>(row).fields[2].second;
      if (inner.index() != 0) expected = std::get<Struct>(inner).fields[0].second;
    }
    EXPECT_EQ(inner_x.get(i), expected) << i;
  }
}

TEST(StructColumnTest, OddSlicesConcatFilterAndTake) {
  const Rows ref = deep_rows(777, 2);
  Column c = build(deep_type(), ref);
  std::vector<Column> parts;
  const std::vector<int64_t> cuts = {0, 3, 3, 70, 133, 517, 518, 777};
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    Column s = c.slice(cuts[k], cuts[k + 1] - cuts[k]);
    EXPECT_EQ(rows_of(s), Rows(ref.begin() + cuts[k], ref.begin() + cuts[k + 1]));
    EXPECT_EQ(rows_of(s.field("id")), rows_of(c.field("id").slice(cuts[k], s.size())));
    parts.push_back(s);
  }
  Column joined = Column::concat(parts);
  EXPECT_EQ(rows_of(joined), ref);
  EXPECT_EQ(joined.null_count(), c.null_count());

  Column sliced = c.slice(13, 700);
  std::vector<bool> keep;
  Rows expected;
  for (int64_t i = 0; i < 700; ++i) {
    keep.push_back(i % 3 != 1);
    if (keep.back()) expected.push_back(ref[size_t(13 + i)]);
  }
  EXPECT_EQ(rows_of(sliced.filter(Column::from(keep))), expected);

  const std::vector<int64_t> picks = {5, 0, 699, 5, 333};
  Rows taken;
  for (int64_t r : picks) taken.push_back(ref[size_t(13 + r)]);
  EXPECT_EQ(rows_of(take_rows(sliced, picks)), taken);
  EXPECT_GT(sliced.byte_size(), 0);
}

TEST(StructColumnTest, NullsAndRepeat) {
  Column n = Column::nulls(deep_type(), 4);
  EXPECT_EQ(n.null_count(), 4);
  EXPECT_EQ(n.field("tags").null_count(), 4);
  Struct v;
  v.fields = {{"bytes", Value{std::vector<uint8_t>{7}}}, {"path", Value{std::string("p")}}};
  Column r = Column::repeat(Value{v}, image_type(), 3);
  EXPECT_EQ(rows_of(r), Rows(3, Value{v}));
  Struct wrong;
  wrong.fields = {{"bytes", Value{std::vector<uint8_t>{7}}}};
  EXPECT_THROW(Column::repeat(Value{wrong}, image_type(), 1), InvalidArgument);
}

TEST(MapColumnTest, BuildsAsAListOfKeyValueStructs) {
  const DataType m = map(utf8(), int64());
  auto entry = [](std::string k, Value v) {
    Struct s;
    s.fields = {{"key", Value{std::move(k)}}, {"value", std::move(v)}};
    return Value{s};
  };
  List a, empty;
  a.element = empty.element = m.element();
  a.items = {entry("x", Value{int64_t(1)}), entry("y", Value{})};
  const Rows ref = {Value{a}, Value{}, Value{empty}, Value{a}};
  Column c = build(m, ref);
  EXPECT_EQ(c.type(), m);
  EXPECT_EQ(rows_of(c), ref);
  EXPECT_EQ(c.list(0).field("key").value<std::string_view>(1), "y");
  EXPECT_EQ(rows_of(Column::concat({c.slice(1, 3), c.slice(0, 1)})),
            (Rows{ref[1], ref[2], ref[3], ref[0]}));
  EXPECT_EQ(rows_of(c.filter(Column::from(std::vector<bool>{false, true, true, true}))),
            (Rows{ref[1], ref[2], ref[3]}));
  EXPECT_EQ(Column::nulls(m, 2).null_count(), 2);
}

TEST(NestedListTest, ListsOfListsOfListsRoundTrip) {
  const DataType t = list(list(list(int32())));
  List inner, mid, outer;
  inner.element = int32();
  inner.items = {Value{int64_t(1)}, Value{}, Value{int64_t(3)}};
  mid.element = list(int32());
  mid.items = {Value{inner}, Value{}, Value{List{{}, int32()}}};
  outer.element = list(list(int32()));
  outer.items = {Value{mid}, Value{}};
  const Rows ref = {Value{outer}, Value{}, Value{List{{}, list(list(int32()))}}, Value{outer}};
  Column c = build(t, ref);
  EXPECT_EQ(rows_of(c), ref);
  EXPECT_EQ(rows_of(Column::concat({c.slice(2, 2), c.slice(0, 2)})),
            (Rows{ref[2], ref[3], ref[0], ref[1]}));
  EXPECT_EQ(to_string(ref[0]), "[[[1, null, 3], null, []], null]");
}

}  // namespace
}  // namespace ember
