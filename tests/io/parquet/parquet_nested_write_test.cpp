// The footer and pages ember's Parquet writer makes for nested columns: the standard struct,
// LIST and MAP layouts, one column chunk per leaf with its level count and statistics, and
// pages that start at row boundaries; and the statistics of every primitive type. (Nested
// values are checked by DuckDB and hyparquet in tests/interop.)
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "io/output/partition_writer.h"
#include "io/parquet/parquet_encodings.h"
#include "io/parquet/parquet_metadata.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using namespace parquet;

struct WrittenFile {
  std::string bytes;
  FileMetaData meta;
};

WrittenFile write(const testing_io::TempDir& dir, const Table& t, ParquetWriteOptions o) {
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Parquet,
                                 FileWriteOptions{o, {}});
  for (const Batch& b : t.batches()) w->write(b);
  w->commit();
  WrittenFile f;
  f.bytes = testing_io::read_file(dir.file("part-00000.parquet"));
  uint32_t len;
  std::memcpy(&len, f.bytes.data() + f.bytes.size() - 8, 4);
  f.meta = read_file_metadata(
      reinterpret_cast<const uint8_t*>(f.bytes.data()) + f.bytes.size() - 8 - len, len);
  return f;
}

Column build(const DataType& type, const std::vector<Value>& rows) {
  ColumnBuilder b(type);
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

// "name:repetition:children:converted" per schema element, depth first.
std::vector<std::string> outline(const FileMetaData& m) {
  std::vector<std::string> out;
  for (const SchemaElement& e : m.schema)
    out.push_back(e.name + ":" + std::to_string(e.repetition) + ":" +
                  std::to_string(e.num_children) + ":" +
                  (e.converted ? std::to_string(*e.converted) : "-"));
  return out;
}

TEST(ParquetNestedWrite, SchemaUsesTheStandardLayouts) {
  const DataType image = struct_({{"bytes", binary()}, {"path", utf8()}});
  const DataType kv = map(utf8(), list(int64()));
  const Table t = Table::from_columns({{"id", Column::from(std::vector<int64_t>{1, 2, 3})},
                                       {"img", Column::nulls(image, 3)},
                                       {"m", Column::nulls(kv, 3)}});
  testing_io::TempDir dir;
  ParquetWriteOptions o;
  o.row_group_rows = 2;
  const WrittenFile f = write(dir, t, o);
  // Repetition 0 required, 1 optional, 2 repeated; converted 0 UTF8, 1 MAP, 3 LIST.
  EXPECT_EQ(outline(f.meta),
            (std::vector<std::string>{"schema:0:3:-", "id:1:0:-", "img:1:2:-", "bytes:1:0:-",
                                      "path:1:0:0", "m:1:1:1", "key_value:2:2:-", "key:0:0:0",
                                      "value:1:1:3", "list:2:1:-", "element:1:0:-"}));
  EXPECT_EQ(f.meta.schema[5].logical.kind, Logical::kMap);
  EXPECT_EQ(f.meta.schema[8].logical.kind, Logical::kList);
  ASSERT_EQ(f.meta.row_groups.size(), 2u);
  std::vector<std::string> paths;
  for (const ColumnMeta& c : f.meta.row_groups[1].columns) {
    std::string p;
    for (const std::string& s : c.path) p += (p.empty() ? "" : ".") + s;
    paths.push_back(p);
    EXPECT_EQ(c.num_values, 1) << p;  // one null row: one level entry per leaf
    EXPECT_EQ(c.stats.null_count, p == "id" ? 0 : 1) << p;
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"id", "img.bytes", "img.path", "m.key_value.key",
                                             "m.key_value.value.list.element"}));
}

TEST(ParquetNestedWrite, LeafChunksCountLevelsAndKeepStatistics) {
  const DataType t = list(list(int32()));
  auto ints = [](std::vector<Value> v) { return Value{List{std::move(v), int32()}}; };
  const Value a = Value{List{{ints({int64_t(5), int64_t(-2)}), ints({})}, list(int32())}};
  const Value b = Value{List{{Value{}, ints({Value{}, int64_t(9)})}, list(int32())}};
  const Table table = Table::from_columns({{"xs", build(t, {a, Value{}, b})}});
  testing_io::TempDir dir;
  const WrittenFile f = write(dir, table, {});
  ASSERT_EQ(f.meta.row_groups.size(), 1u);
  const ColumnMeta& c = f.meta.row_groups[0].columns.at(0);
  EXPECT_EQ(c.num_values, 7);  // 5, -2, [], null row, null list, null item, 9
  EXPECT_EQ(c.stats.null_count, 4);
  int32_t lo, hi;
  ASSERT_TRUE(c.stats.min && c.stats.max);
  std::memcpy(&lo, c.stats.min->data(), 4), std::memcpy(&hi, c.stats.max->data(), 4);
  EXPECT_EQ(lo, -2);
  EXPECT_EQ(hi, 9);
}

// Long lists: pages are cut by level count as well as rows, always where a row starts.
TEST(ParquetNestedWrite, PagesOfLongListsStartAtRowBoundaries) {
  const int64_t rows = 30000, items = 100;
  std::vector<std::vector<int32_t>> v(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < items; ++k) v[size_t(r)].push_back(int32_t(r * items + k));
  const Table table = Table::from_columns({{"xs", Column::from(v)}});
  testing_io::TempDir dir;
  ParquetWriteOptions o;
  o.compression = Compression::None;
  const WrittenFile f = write(dir, table, o);
  const ColumnMeta& c = f.meta.row_groups.at(0).columns.at(0);
  ASSERT_EQ(c.num_values, rows * items);
  const auto* p = reinterpret_cast<const uint8_t*>(f.bytes.data()) + c.data_page_offset;
  int64_t seen = 0, pages = 0;
  while (seen < c.num_values) {
    size_t consumed = 0;
    const PageHeader h = read_page_header(p, f.bytes.size(), &consumed);
    ASSERT_EQ(h.type, kDataPage);
    EXPECT_LE(h.num_values, (1 << 20) + items);
    EXPECT_EQ(h.num_values % items, 0);  // whole rows only
    uint32_t rep_bytes;
    std::memcpy(&rep_bytes, p + consumed, 4);
    std::vector<uint32_t> reps(size_t(h.num_values));
    decode_rle(p + consumed + 4, rep_bytes, 1, h.num_values, reps.data());
    EXPECT_EQ(reps[0], 0u);
    EXPECT_EQ(reps[1], 1u);
    seen += h.num_values;
    ++pages;
    p += consumed + size_t(h.compressed_size);
  }
  EXPECT_EQ(seen, rows * items);
  EXPECT_GE(pages, 3);
}

template <class T>
std::string bytes_of(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

TEST(ParquetWriteStatistics, MinMaxOfEveryPrimitiveTypeLeaveOutNullsAndNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Table t = Table::from_columns(
      {{"i32", Column::from(std::vector<std::optional<int32_t>>{4, std::nullopt, -7, 2})},
       {"i64", Column::from(std::vector<std::optional<int64_t>>{std::nullopt, 1LL << 40, -3, 0})},
       {"f64", Column::from(std::vector<std::optional<double>>{nan, 2.5, std::nullopt, -0.5})},
       {"f32", Column::from(std::vector<float>{1.5f, -8.0f, 3.0f, float(nan)})},
       {"b", Column::from(std::vector<std::optional<bool>>{true, std::nullopt, true, true})},
       {"s", Column::from(std::vector<std::optional<std::string>>{"pear", "apple", std::nullopt,
                                                                  "\xc3\xa9t\xc3\xa9"})},
       {"bin", Column::from(std::vector<std::vector<uint8_t>>{{1}, {0}, {2}, {3}})},
       {"d", Column::from(std::vector<Date>{{19723}, {-5}, {0}, {400}})},
       {"ts", Column::from(std::vector<std::optional<Timestamp>>{std::nullopt, Timestamp{9},
                                                                 Timestamp{-9}, std::nullopt})},
       {"none", Column::from(std::vector<std::optional<int64_t>>{std::nullopt, std::nullopt,
                                                                 std::nullopt, std::nullopt})}});
  testing_io::TempDir dir;
  const WrittenFile f = write(dir, t, {});
  const std::vector<ColumnMeta>& c = f.meta.row_groups.at(0).columns;
  ASSERT_EQ(c.size(), 10u);
  auto expect = [&](size_t k, const std::string& min, const std::string& max, int64_t nulls) {
    EXPECT_EQ(c[k].stats.min, min) << c[k].path[0];
    EXPECT_EQ(c[k].stats.max, max) << c[k].path[0];
    EXPECT_EQ(c[k].stats.null_count, nulls) << c[k].path[0];
  };
  expect(0, bytes_of(int32_t{-7}), bytes_of(int32_t{4}), 1);
  expect(1, bytes_of(int64_t{-3}), bytes_of(int64_t{1} << 40), 1);
  expect(2, bytes_of(-0.5), bytes_of(2.5), 1);
  expect(3, bytes_of(-8.0f), bytes_of(3.0f), 0);
  expect(4, std::string(1, '\1'), std::string(1, '\1'), 1);
  expect(5, "apple", "\xc3\xa9t\xc3\xa9", 1);  // byte order: 0xc3 sorts after ASCII
  EXPECT_FALSE(c[6].stats.min.has_value());    // no order is kept for binary
  EXPECT_EQ(c[6].stats.null_count, 0);
  expect(7, bytes_of(int32_t{-5}), bytes_of(int32_t{19723}), 0);
  expect(8, bytes_of(int64_t{-9}), bytes_of(int64_t{9}), 2);
  EXPECT_FALSE(c[9].stats.min.has_value());
  EXPECT_EQ(c[9].stats.null_count, 4);
}

TEST(ParquetNestedWrite, TypesParquetCannotHoldAreNamed) {
  for (const DataType& bad :
       {struct_({{"a", int64()}, {"b", DataType()}}), list(map(utf8(), DataType())), struct_({})}) {
    try {
      check_format_holds(Schema({{"ok", int64()}, {"nested", bad}}), FileFormat::Parquet);
      ADD_FAILURE() << bad.to_string();
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("column 'nested' of type " + bad.to_string()),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(check_format_holds(
      Schema({{"deep", list(struct_({{"m", map(utf8(), list(list(float64())))}}))}}),
      FileFormat::Parquet));
}

}  // namespace
}  // namespace ember
