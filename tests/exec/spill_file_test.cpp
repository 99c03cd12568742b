// Spill files keep nested columns whole: structs, maps and lists of lists of lists, with nulls
// at every level, written whole or as slices at odd offsets, read back value for value; and the
// same column codec into bytes.
#include "exec/relational/spill_file.h"

#include <gtest/gtest.h>

#include <random>

#include "ember/column.h"
#include "ember/error.h"
#include "exec/relational/column_codec.h"

namespace ember {
namespace {

using Rows = std::vector<Value>;

Rows rows_of(const Column& c) {
  Rows out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.get(i));
  return out;
}

Column build(const DataType& type, const Rows& rows) {
  ColumnBuilder b(type);
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

/// A random value of `type`, null about one time in five at every level.
Value random_value(const DataType& type, std::mt19937& rng, int64_t i) {
  if (rng() % 5 == 0) return Value{};
  switch (type.id()) {
    case TypeId::Int64:
      return Value{int64_t(i * 7 + rng() % 3)};
    case TypeId::Utf8:
      return Value{std::string(rng() % 4, char('a' + i % 26))};
    case TypeId::Struct: {
      Struct s;
      for (const Field& f : type.fields())
        s.fields.emplace_back(f.name, random_value(f.type, rng, i));
      return Value{std::move(s)};
    }
    case TypeId::List:
    case TypeId::Map: {
      List l;
      l.element = type.element();
      for (uint32_t k = rng() % 4; k > 0; --k) {
        Value item = random_value(type.element(), rng, i + k);
        if (type.id() == TypeId::Map) {  // a map's entries are never null, nor their keys
          Struct entry;
          entry.fields.emplace_back("key", Value{std::string(1, char('a' + k))});
          entry.fields.emplace_back("value", random_value(type.element().fields()[1].type, rng, i));
          item = Value{std::move(entry)};
        }
        l.items.push_back(std::move(item));
      }
      return Value{std::move(l)};
    }
    default:
      ADD_FAILURE() << "no random values of " << type.to_string();
      return Value{};
  }
}

Column random_column(const DataType& type, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Rows rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back(random_value(type, rng, i));
  return build(type, rows);
}

std::vector<DataType> nested_types() {
  return {struct_({{"id", int64()},
                   {"tags", list(utf8())},
                   {"inner", struct_({{"x", int64()}, {"s", utf8()}})}}),
          map(utf8(), struct_({{"n", int64()}})), list(list(list(int64()))),
          list(struct_({{"m", map(utf8(), int64())}}))};
}

TEST(SpillFileTest, NestedColumnsRoundTripWholeAndSliced) {
  for (const DataType& type : nested_types()) {
    SCOPED_TRACE(type.to_string());
    const Column whole = random_column(type, 200, 11);
    const Column sliced = whole.slice(37, 101);  // odd offset: the bitmaps do not start on a byte
    const Column tail = whole.slice(199, 1);
    SpillFile file;
    file.write({whole, Column::from(std::vector<int64_t>(200, 5))});
    file.write({sliced, Column::from(std::vector<int64_t>(101, 6))});
    file.write({tail, Column::from(std::vector<int64_t>{7})});
    const auto groups = file.read_all({type, int64()});
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(rows_of(groups[0][0]), rows_of(whole));
    EXPECT_EQ(rows_of(groups[1][0]), rows_of(sliced));
    EXPECT_EQ(rows_of(groups[2][0]), rows_of(tail));
    EXPECT_EQ(groups[1][0].null_count(), sliced.null_count());
    EXPECT_EQ(groups[1][1].value<int64_t>(100), 6) << "the column after the nested one moved";
    EXPECT_EQ(groups[2][1].value<int64_t>(0), 7);
  }
}

TEST(SpillFileTest, ASliceWritesOnlyItsOwnRows) {
  const DataType type = nested_types()[0];
  const Column whole = random_column(type, 4000, 3);
  SpillFile big, small;
  big.write({whole});
  small.write({whole.slice(1001, 10)});
  EXPECT_LT(small.bytes_written() * 50, big.bytes_written())
      << "a ten-row slice of a struct wrote its whole children";
  EXPECT_EQ(rows_of(small.read_all({type})[0][0]), rows_of(whole.slice(1001, 10)));
}

TEST(SpillFileTest, StructFieldsReadBackAsColumns) {
  // A struct whose children are themselves slices, with struct-level nulls over valid children.
  Column ids = Column::from(std::vector<std::optional<int64_t>>{1, 2, std::nullopt, 4, 5, 6});
  Column names = Column::from(std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  Column s = Column::struct_of({{"id", ids.slice(1, 5)}, {"name", names.slice(1, 5)}});
  std::vector<Value> rows = rows_of(s);
  rows[3] = Value{};
  const DataType type = s.type();
  Column with_nulls = build(type, rows).slice(1, 4);
  SpillFile file;
  file.write({with_nulls});
  const Column back = file.read_next({type}).value()[0];
  EXPECT_EQ(rows_of(back), rows_of(with_nulls));
  EXPECT_TRUE(back.is_null(2));
  EXPECT_EQ(rows_of(back.field("name")), rows_of(with_nulls.field("name")));
  EXPECT_FALSE(file.read_next({type}).has_value());
}

TEST(ColumnCodec, ColumnsRoundTripThroughBytesAndCutBytesAreAnError) {
  // The same codec as a spill file's, into a string: how a sorted partition travels to rank 0.
  std::vector<Column> columns;
  std::vector<DataType> types;
  for (const DataType& type : nested_types()) {
    columns.push_back(random_column(type, 300, 5).slice(41, 123));
    types.push_back(type);
  }
  columns.push_back(Column::from(std::vector<std::optional<double>>{0.5, std::nullopt, 2.5}));
  columns.back() = Column::concat(std::vector<Column>(41, columns.back())).slice(0, 123);
  types.push_back(float64());
  std::string bytes = "head";
  append_columns(columns, bytes);
  std::string_view in(bytes);
  in.remove_prefix(4);
  const std::vector<Column> back = read_columns(in, types);
  EXPECT_TRUE(in.empty()) << in.size() << " bytes left";
  ASSERT_EQ(back.size(), columns.size());
  for (size_t c = 0; c < columns.size(); ++c) EXPECT_EQ(rows_of(back[c]), rows_of(columns[c]));
  std::string_view cut(bytes.data() + 4, bytes.size() - 5);
  EXPECT_THROW(read_columns(cut, types), Error);
}

}  // namespace
}  // namespace ember
