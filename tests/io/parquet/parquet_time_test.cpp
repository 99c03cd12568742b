// Parquet TIME (TIME_MILLIS, TIME_MICROS and the TIME logical type in each unit) reads as int64
// microseconds since midnight.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>

#include "io/parquet/parquet_scan.h"
#include "io/parquet/rewritten_footer.h"

namespace ember {
namespace {

using parquet::FileMetaData;
using testing_io::schema_element;
using testing_io::TempDir;
using testing_io::write_parquet_with_footer;

Column read_column(const std::string& path, const std::string& name) {
  const ParquetScan scan = plan_parquet_scan(path, {name});
  EXPECT_EQ(scan.schema.to_string(), name + ": int64");
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_parquet_part(scan, static_cast<int>(p), 100);
    while (auto b = reader->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches)).column(name);
}

// 00:00:00, 12:34:56.789, 23:59:59.999 and null, in microseconds.
const std::vector<Value> kMicros = {Value(int64_t{0}), Value(int64_t{45296789000}),
                                    Value(int64_t{86399999000}), Value()};

void expect_micros(const Column& c) {
  ASSERT_EQ(c.size(), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(c.get(i), kMicros[size_t(i)]) << "row " << i;
}

// The times above in each unit: millis in INT32, micros and nanos in INT64.
Table stored_times() {
  using I32 = std::vector<std::optional<int32_t>>;
  using I64 = std::vector<std::optional<int64_t>>;
  return Table::from_columns(
      {{"ms", Column::from(I32{0, 45296789, 86399999, std::nullopt})},
       {"us", Column::from(I64{0, 45296789000, 86399999000, std::nullopt})},
       {"ns", Column::from(I64{0, 45296789000000, 86399999000000, std::nullopt})}});
}

TEST(ParquetTime, ConvertedTimeTypesReadAsMicrosecondsSinceMidnight) {
  TempDir dir;
  const std::string path =
      write_parquet_with_footer(dir, "time.parquet", stored_times(), [](FileMetaData& m) {
        schema_element(m, "ms").converted = parquet::kTimeMillis;
        schema_element(m, "us").converted = parquet::kTimeMicros;
      });
  expect_micros(read_column(path, "ms"));
  expect_micros(read_column(path, "us"));
}

TEST(ParquetTime, TimeLogicalTypeInEachUnitReadsAsMicrosecondsSinceMidnight) {
  TempDir dir;
  const std::string path =
      write_parquet_with_footer(dir, "time.parquet", stored_times(), [](FileMetaData& m) {
        const std::pair<const char*, int> units[] = {{"ms", 1}, {"us", 2}, {"ns", 3}};
        for (const auto& [name, unit] : units) {
          parquet::SchemaElement& e = schema_element(m, name);
          e.logical.kind = parquet::Logical::kTime;
          e.logical.time_unit = unit;
        }
      });
  for (const char* name : {"ms", "us", "ns"}) expect_micros(read_column(path, name));
}

TEST(ParquetTime, DuckdbTimeReadsAsMicrosecondsSinceMidnight) {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env
                     : (std::filesystem::path(__FILE__).parent_path() / "../../data").string();
  const Column c = read_column(data + "/io/parquet/duckdb_time.parquet", "t");
  ASSERT_EQ(c.size(), 4);
  EXPECT_EQ(c.get(1), Value(int64_t{45296789012}));  // 12:34:56.789012
  EXPECT_EQ(c.get(2), Value(int64_t{86399999999}));
  EXPECT_TRUE(c.is_null(3));
}

}  // namespace
}  // namespace ember
