// Batch and Table tests: validation, slicing, filtering, concatenation and text rendering.
#include "ember/batch.h"

#include <gtest/gtest.h>

namespace ember {
namespace {

Batch sample_batch() {
  Schema s({{"id", int64()}, {"name", utf8()}});
  return Batch(
      s, {Column::from(std::vector<int64_t>{1, 2, 3, 4}),
          Column::from(std::vector<std::optional<std::string>>{"a", std::nullopt, "c", "d"})});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "<no InvalidArgument>";
}

TEST(BatchTest, ValidatesCountTypeAndLength) {
  Schema s({{"id", int64()}, {"name", utf8()}});
  Column ids = Column::from(std::vector<int64_t>{1, 2});
  Column names = Column::from(std::vector<std::string>{"a", "b"});
  EXPECT_NO_THROW(Batch(s, {ids, names}));
  EXPECT_NE(error_of([&] { Batch(s, {ids}); }).find("2 fields"), std::string::npos);
  EXPECT_NE(error_of([&] {
              Batch(s, {ids, ids});
            }).find("column 'name' is int64"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              Batch(s, {ids, Column::from(std::vector<std::string>{"a"})});
            }).find("column 'name' has 1 rows"),
            std::string::npos);
}

TEST(BatchTest, ColumnByNameListsExistingColumns) {
  Batch b = sample_batch();
  EXPECT_EQ(b.column("name").type(), utf8());
  const std::string msg = error_of([&] { b.column("nme"); });
  EXPECT_NE(msg.find("'nme'"), std::string::npos);
  EXPECT_NE(msg.find("id, name"), std::string::npos);
}

TEST(BatchTest, SliceFilterConcat) {
  Batch b = sample_batch();
  Batch s = b.slice(1, 2);
  EXPECT_EQ(s.num_rows(), 2);
  EXPECT_EQ(s.column(0).value<int64_t>(0), 2);
  EXPECT_TRUE(s.column(1).is_null(0));
  Batch f =
      b.filter(Column::from(std::vector<std::optional<bool>>{true, false, std::nullopt, true}));
  EXPECT_EQ(f.num_rows(), 2);
  EXPECT_EQ(f.column("id").value<int64_t>(1), 4);
  EXPECT_EQ(f.column("name").value<std::string_view>(1), "d");
  Batch c = Batch::concat({s, b, f});
  EXPECT_EQ(c.num_rows(), 8);
  EXPECT_EQ(c.column(0).get(2), Value{int64_t{1}});
  EXPECT_EQ(c.column(1).get(7), Value{std::string("d")});
  EXPECT_GT(c.byte_size(), 0);
  Batch other(Schema({{"x", int64()}}), {Column::from(std::vector<int64_t>{1})});
  EXPECT_THROW(Batch::concat({b, other}), InvalidArgument);
  EXPECT_THROW(b.filter(Column::from(std::vector<bool>{true})), InvalidArgument);
  EXPECT_THROW(b.slice(3, 2), InvalidArgument);
}

TEST(BatchTest, EmptyWithRowsKeepsCountThroughSliceAndFilter) {
  Batch e = Batch::empty_with_rows(10);
  EXPECT_EQ(e.num_rows(), 10);
  EXPECT_EQ(e.num_columns(), 0);
  EXPECT_EQ(e.slice(2, 5).num_rows(), 5);
  std::vector<std::optional<bool>> m(10, true);
  m[3] = false;
  m[4] = std::nullopt;
  EXPECT_EQ(e.filter(Column::from(m)).num_rows(), 8);
  EXPECT_EQ(Batch::concat({e, e}).num_rows(), 20);
}

TEST(TableTest, ColumnConcatenatesBatches) {
  Batch b = sample_batch();
  Table t(b.schema(), {b, b.slice(2, 2)});
  EXPECT_EQ(t.num_rows(), 6);
  Column ids = t.column("id");
  ASSERT_EQ(ids.size(), 6);
  EXPECT_EQ(ids.value<int64_t>(5), 4);
  EXPECT_THROW(t.column("nope"), InvalidArgument);
  EXPECT_THROW(Table(Schema({{"x", int64()}}), {b}), InvalidArgument);
  Table empty(b.schema(), {});
  EXPECT_EQ(empty.column("name").type(), utf8());
  EXPECT_EQ(empty.column("name").size(), 0);
}

TEST(TableTest, FromColumns) {
  Table t = Table::from_columns({{"x", Column::from(std::vector<double>{1.5, 2})},
                                 {"y", Column::from(std::vector<bool>{true, false})}});
  EXPECT_EQ(t.schema().to_string(), "x: float64, y: bool");
  EXPECT_EQ(t.num_rows(), 2);
  EXPECT_THROW(Table::from_columns({{"x", Column::from(std::vector<int64_t>{1})},
                                    {"y", Column::from(std::vector<int64_t>{1, 2})}}),
               InvalidArgument);
  EXPECT_THROW(Table::from_columns({{"x", Column()}, {"x", Column()}}), InvalidArgument);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(TableTest, ToStringAlignsAndShowsNulls) {
  Table t = Table::from_columns(
      {{"id", Column::from(std::vector<int64_t>{1, 22, 333})},
       {"name", Column::from(std::vector<std::optional<std::string>>{"alice", std::nullopt, "b"})},
       {"score", Column::from(std::vector<std::optional<double>>{1.5, 2, std::nullopt})}});
  const auto lines = lines_of(t.to_string());
  ASSERT_EQ(lines.size(), 7u) << t.to_string();
  EXPECT_NE(lines[0].find("id"), std::string::npos);
  EXPECT_NE(lines[0].find("name"), std::string::npos);
  EXPECT_NE(lines[1].find("int64"), std::string::npos);
  EXPECT_NE(lines[1].find("float64"), std::string::npos);
  // Numbers right-aligned: every id cell ends in the same column as the header "int64".
  const size_t id_end = lines[1].find("int64") + 5;
  EXPECT_EQ(lines[3].substr(0, id_end), std::string(id_end - 1, ' ') + "1");
  EXPECT_EQ(lines[5].substr(0, id_end), std::string(id_end - 3, ' ') + "333");
  EXPECT_NE(lines[4].find("null"), std::string::npos);
  EXPECT_EQ(lines.back(), "(3 rows)");
}

TEST(TableTest, ToStringTruncatesRowsAndLongStrings) {
  std::vector<int64_t> ids(1234);
  std::vector<std::string> text(1234, std::string(100, 'x'));
  for (int64_t i = 0; i < 1234; ++i) ids[size_t(i)] = i;
  Table t = Table::from_columns({{"id", Column::from(ids)}, {"text", Column::from(text)}});
  const std::string s = t.to_string(5);
  const auto lines = lines_of(s);
  ASSERT_EQ(lines.size(), 3u + 5u + 2u) << s;
  EXPECT_EQ(lines.back(), "(1,234 rows)");
  EXPECT_EQ(lines[lines.size() - 2], "\xE2\x80\xA6 1,229 more rows");
  EXPECT_NE(lines[3].find("\xE2\x80\xA6"), std::string::npos);
  EXPECT_EQ(lines[3].find(std::string(41, 'x')), std::string::npos);
  EXPECT_EQ(
      lines_of(Table::from_columns({{"a", Column::from(std::vector<int64_t>{1})}}).to_string())
          .back(),
      "(1 row)");
}

}  // namespace
}  // namespace ember
