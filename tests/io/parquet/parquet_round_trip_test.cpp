// ember's Parquet writer read back by ember's reader: every type with nulls at both levels,
// several row groups and pages, each codec, dictionary and plain strings, statistics.
#include <gtest/gtest.h>

#include "io/output/partition_writer.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_scan.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using Words = std::vector<std::optional<std::string>>;

Table sample(int64_t n) {
  std::vector<std::optional<int64_t>> i64;
  std::vector<std::optional<int32_t>> i32;
  std::vector<std::optional<double>> f64;
  std::vector<std::optional<float>> f32;
  std::vector<std::optional<bool>> b;
  std::vector<std::optional<std::string>> low, high;
  std::vector<std::optional<std::vector<uint8_t>>> bin;
  std::vector<std::optional<Timestamp>> ts;
  std::vector<std::optional<Words>> tags;
  for (int64_t i = 0; i < n; ++i) {
    i64.push_back(i % 9 == 0 ? std::nullopt : std::optional<int64_t>(i * 1000003 - 5));
    i32.push_back(i % 8 == 0 ? std::nullopt : std::optional<int32_t>(int32_t(i) - 700));
    f64.push_back(i % 7 == 0 ? std::nullopt : std::optional<double>(i * 0.125));
    f32.push_back(std::optional<float>(float(i) / 3));
    b.push_back(i % 5 == 0 ? std::nullopt : std::optional<bool>(i % 2 == 0));
    low.push_back(i % 6 == 0 ? std::nullopt
                             : std::optional<std::string>("k" + std::to_string(i % 5)));
    high.push_back(std::optional<std::string>("value number " + std::to_string(i)));
    bin.push_back(std::vector<uint8_t>{uint8_t(i), 0, uint8_t(i >> 8)});
    ts.push_back(i % 4 == 0 ? std::nullopt : std::optional<Timestamp>(Timestamp{i * 1000 - 99}));
    Words w;
    for (int64_t k = 0; k < i % 4; ++k)
      w.push_back(k == 1 ? std::nullopt : std::optional<std::string>("w" + std::to_string(i + k)));
    tags.push_back(i % 10 == 3 ? std::nullopt : std::optional<Words>(w));
  }
  ColumnBuilder emb(fixed_size_list(float32(), 2));
  for (int64_t i = 0; i < n; ++i) {
    if (i % 13 == 0)
      emb.append_null();
    else
      emb.append_value(List{{float(i), Value{}}, float32()});
  }
  return Table::from_columns({{"i64", Column::from(i64)},
                              {"i32", Column::from(i32)},
                              {"f64", Column::from(f64)},
                              {"f32", Column::from(f32)},
                              {"b", Column::from(b)},
                              {"low", Column::from(low)},
                              {"high", Column::from(high)},
                              {"bin", Column::from(bin)},
                              {"ts", Column::from(ts)},
                              {"tags", Column::from(tags)},
                              {"emb", emb.finish()}});
}

Table read_back(const std::string& path) {
  const ParquetScan scan = plan_parquet_scan(path, {});
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto r = open_parquet_part(scan, static_cast<int>(p), 1000);
    while (auto b = r->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

class Codec : public testing::TestWithParam<Compression> {};

TEST_P(Codec, EveryTypeRoundTrips) {
  testing_io::TempDir dir;
  const int64_t n = 70000;  // two pages in the first row group
  const Table t = sample(n);
  ParquetWriteOptions o;
  o.compression = GetParam();
  o.row_group_rows = 40000;
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Parquet,
                                 FileWriteOptions{o, {}});
  for (const Batch& b : t.batches())
    w->write(b.slice(0, 30000)), w->write(b.slice(30000, n - 30000));
  w->commit();
  const std::string path = dir.file("part-00000.parquet");
  const ParquetFile footer = read_parquet_footer(path);
  ASSERT_EQ(footer.meta.row_groups.size(), 2u);
  EXPECT_EQ(footer.meta.row_groups[0].num_rows, 40000);
  const Table back = read_back(path);
  // fixed_size_list comes back as list: Parquet has no fixed-size list.
  EXPECT_EQ(back.schema().to_string(),
            "i64: int64, i32: int32, f64: float64, f32: float32, b: bool, low: utf8, high: utf8, "
            "bin: binary, ts: timestamp[us], tags: list<utf8>, emb: list<float32>");
  ASSERT_EQ(back.num_rows(), n);
  for (int c = 0; c < t.schema().num_fields(); ++c) {
    const Column want = t.column(t.schema().field(c).name),
                 got = back.column(t.schema().field(c).name);
    for (int64_t i = 0; i < n; i += 1)
      ASSERT_EQ(got.get(i), want.get(i)) << t.schema().field(c).name << " row " << i;
  }
  // Low-cardinality strings get a dictionary; statistics hold min, max and nulls.
  const auto& low = footer.meta.row_groups[0].columns[5];
  EXPECT_TRUE(low.dictionary_page_offset.has_value());
  EXPECT_FALSE(footer.meta.row_groups[0].columns[6].dictionary_page_offset.has_value());
  EXPECT_EQ(low.stats.min, "k0");
  EXPECT_EQ(low.stats.max, "k4");
  EXPECT_EQ(low.stats.null_count, 6667);
}

INSTANTIATE_TEST_SUITE_P(Parquet, Codec,
                         testing::Values(Compression::Snappy, Compression::Zstd, Compression::Gzip,
                                         Compression::None));

// `t` as one Parquet file in `dir` with the default options: its path.
std::string write_with_defaults(const testing_io::TempDir& dir, const Table& t) {
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Parquet,
                                 FileWriteOptions{ParquetWriteOptions{}, {}});
  for (const Batch& b : t.batches()) w->write(b);
  w->commit();
  return dir.file("part-00000.parquet");
}

// Data pages of one column chunk: (uncompressed bytes, values) of each, in order.
std::vector<std::pair<int64_t, int64_t>> data_pages(const std::string& path, size_t column) {
  const std::string bytes = testing_io::read_file(path);
  const ParquetFile footer = read_parquet_footer(path);
  const parquet::ColumnMeta& c = footer.meta.row_groups.at(0).columns.at(column);
  std::vector<std::pair<int64_t, int64_t>> pages;
  size_t at = size_t(c.dictionary_page_offset.value_or(c.data_page_offset));
  for (int64_t seen = 0; seen < c.num_values;) {
    size_t consumed = 0;
    const parquet::PageHeader h = parquet::read_page_header(
        reinterpret_cast<const uint8_t*>(bytes.data()) + at, bytes.size() - at, &consumed);
    if (h.type == parquet::kDataPage) {
      pages.emplace_back(h.uncompressed_size, h.num_values);
      seen += h.num_values;
    }
    at += consumed + size_t(h.compressed_size);
  }
  return pages;
}

TEST(ParquetWriter, PagesOfLargeValuesStopNearAMebibyte) {
  // 6000 rows of 1 KiB images (incompressible), as a column and as a struct's field: 64K-row
  // pages would be 6 MiB each; pages of about 1 MiB of values (whole rows) keep what is built
  // and read back in cache-sized buffers, and each chunk goes to the file in pieces of a few
  // MiB as its pages are made.
  const int64_t n = 6000;
  std::vector<std::optional<std::vector<uint8_t>>> images;
  uint64_t x = 1;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<uint8_t> bytes(1024);
    for (uint8_t& b : bytes)
      b = uint8_t((x = x * 6364136223846793005u + 1442695040888963407u) >> 56);
    images.push_back(i % 10 == 9 ? std::nullopt : std::optional(std::move(bytes)));
  }
  const Column image = Column::from(images);
  const Table t =
      Table::from_columns({{"image", image}, {"s", Column::struct_of({{"bytes", image}})}});
  testing_io::TempDir dir;
  const std::string path = write_with_defaults(dir, t);
  for (size_t column : {size_t{0}, size_t{1}}) {
    const auto pages = data_pages(path, column);
    EXPECT_GE(pages.size(), 5u) << "column " << column;
    int64_t values = 0;
    for (const auto& [size, count] : pages) {
      EXPECT_LE(size, (1 << 20) + 1028 + 1024) << "column " << column;  // + a value + levels
      values += count;
    }
    EXPECT_EQ(values, n);
  }
  const Table back = read_back(path);
  ASSERT_EQ(back.num_rows(), n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(back.column("image").get(i), t.column("image").get(i)) << i;
    ASSERT_EQ(back.column("s").get(i), t.column("s").get(i)) << i;
  }
}

TEST(ParquetReader, PagesWithoutNullsBeforeAndAfterPagesWithNulls) {
  // Pages of 64K rows: the first two have no null (their levels, one run each, are only
  // counted), the third has some, the fourth none again; a second column has none at all.
  const int64_t n = 250000;
  std::vector<std::optional<int64_t>> some;
  std::vector<int64_t> none;
  for (int64_t i = 0; i < n; ++i) {
    some.push_back(i >= 140000 && i < 190000 && i % 7 == 0 ? std::nullopt
                                                           : std::optional<int64_t>(i * 3));
    none.push_back(-i);
  }
  const Table t = Table::from_columns({{"some", Column::from(some)}, {"none", Column::from(none)}});
  testing_io::TempDir dir;
  const std::string path = write_with_defaults(dir, t);
  ASSERT_GE(data_pages(path, 0).size(), 4u);
  const Table back = read_back(path);
  ASSERT_EQ(back.num_rows(), n);
  const Column got_some = back.column("some"), got_none = back.column("none"),
               want_some = t.column("some");
  EXPECT_EQ(got_some.null_count(), want_some.null_count());
  EXPECT_EQ(got_none.null_count(), 0);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_some.get(i), want_some.get(i)) << i;
    ASSERT_EQ(got_none.get(i), Value(-i)) << i;
  }
}

TEST(ParquetWriter, ColumnsParquetCannotHoldAreNamed) {
  try {
    check_format_holds(Schema({{"ok", int64()}, {"nested", list(list(DataType()))}}),
                       FileFormat::Parquet);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("column 'nested'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember
