// Parquet integer annotations at their extremes: INT_8/16/32/64 and UINT_8/16/32/64, as
// converted types and as the INTEGER logical type, and unsigned 64-bit values: read as int64
// when they fit, refused (never read negative) when they do not.
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
using testing_io::set_integer_logical;
using testing_io::TempDir;
using testing_io::write_parquet_with_footer;
using I32 = std::vector<std::optional<int32_t>>;
using I64 = std::vector<std::optional<int64_t>>;

std::string fixture(const std::string& name) {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env
                     : (std::filesystem::path(__FILE__).parent_path() / "../../data").string();
  return data + "/io/parquet/" + name;
}

Table read_all(const std::string& path, const std::vector<std::string>& columns = {}) {
  const ParquetScan scan = plan_parquet_scan(path, columns);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_parquet_part(scan, static_cast<int>(p), 100);
    while (auto b = reader->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

using Ints = std::vector<std::optional<int64_t>>;

Ints values(const Table& t, const std::string& column) {
  Ints out;
  const Column c = t.column(column);
  for (int64_t i = 0; i < c.size(); ++i) {
    const Value v = c.get(i);
    out.push_back(std::holds_alternative<int64_t>(v) ? std::optional(std::get<int64_t>(v))
                                                     : std::nullopt);
  }
  return out;
}

// Values stored in the physical types (the unsigned ones as their two's-complement bits), with
// the converted types DuckDB writes, or with INTEGER logical types alone.
Table stored_extremes() {
  return Table::from_columns({
      {"i8", Column::from(I32{-128, 127, 0, std::nullopt})},
      {"i16", Column::from(I32{-32768, 32767, 0, std::nullopt})},
      {"i32", Column::from(I32{INT32_MIN, INT32_MAX, 0, std::nullopt})},
      {"i64", Column::from(I64{INT64_MIN, INT64_MAX, 0, std::nullopt})},
      {"u8", Column::from(I32{0, 255, 1, std::nullopt})},
      {"u16", Column::from(I32{0, 65535, 1, std::nullopt})},
      {"u32", Column::from(I32{0, -1, 1, std::nullopt})},  // -1: the bits of 4294967295
      {"u64", Column::from(I64{0, INT64_MAX, 1, std::nullopt})},
  });
}

void expect_extremes(const Table& t) {
  EXPECT_EQ(t.schema().to_string(),
            "i8: int32, i16: int32, i32: int32, i64: int64, u8: int32, u16: int32, u32: int64, "
            "u64: int64");
  EXPECT_EQ(values(t, "i8"), Ints({-128, 127, 0, std::nullopt}));
  EXPECT_EQ(values(t, "i16"), Ints({-32768, 32767, 0, std::nullopt}));
  EXPECT_EQ(values(t, "i32"), Ints({INT32_MIN, INT32_MAX, 0, std::nullopt}));
  EXPECT_EQ(values(t, "i64"), Ints({INT64_MIN, INT64_MAX, 0, std::nullopt}));
  EXPECT_EQ(values(t, "u8"), Ints({0, 255, 1, std::nullopt}));
  EXPECT_EQ(values(t, "u16"), Ints({0, 65535, 1, std::nullopt}));
  EXPECT_EQ(values(t, "u32"), Ints({0, 4294967295, 1, std::nullopt}));
  EXPECT_EQ(values(t, "u64"), Ints({0, INT64_MAX, 1, std::nullopt}));
}

TEST(ParquetIntegers, EveryConvertedTypeAtItsExtremesAsDuckdbWritesIt) {
  expect_extremes(read_all(fixture("duckdb_integer_extremes.parquet")));
  TempDir dir;
  const std::string path =
      write_parquet_with_footer(dir, "converted.parquet", stored_extremes(), [](FileMetaData& m) {
        const std::pair<const char*, parquet::Converted> annotations[] = {
            {"i8", parquet::kInt8},    {"i16", parquet::kInt16}, {"i32", parquet::kInt32C},
            {"i64", parquet::kInt64C}, {"u8", parquet::kUint8},  {"u16", parquet::kUint16},
            {"u32", parquet::kUint32}, {"u64", parquet::kUint64}};
        for (const auto& [name, converted] : annotations)
          schema_element(m, name).converted = converted;
      });
  expect_extremes(read_all(path));
}

TEST(ParquetIntegers, EveryIntegerLogicalTypeAtItsExtremes) {
  TempDir dir;
  const std::string path =
      write_parquet_with_footer(dir, "logical.parquet", stored_extremes(), [](FileMetaData& m) {
        for (const char* name : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})
          set_integer_logical(m, name, std::atoi(name + 1), name[0] == 'i');
      });
  expect_extremes(read_all(path));
}

TEST(ParquetIntegers, UnsignedValueAboveInt64MaxIsAParseErrorNamingFileAndColumn) {
  TempDir dir;
  // The bits of 2^64 - 1 between two values that fit; both annotations read the same way.
  const Table t = Table::from_columns({{"u", Column::from(I64{5, -1, std::nullopt})}});
  const std::string converted = write_parquet_with_footer(
      dir, "converted.parquet", t,
      [](FileMetaData& m) { schema_element(m, "u").converted = parquet::kUint64; });
  const std::string logical = write_parquet_with_footer(
      dir, "logical.parquet", t, [](FileMetaData& m) { set_integer_logical(m, "u", 64, false); });
  for (const std::string& path : {converted, logical, fixture("duckdb_uint64_overflow.parquet")}) {
    try {
      const Table read = read_all(path);
      FAIL() << path << " read as " << read.to_string();
    } catch (const ParseError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path + ": row group 0, column 'u': unsigned value "
                                 "18446744073709551615 does not fit in int64"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("ParquetOptions::columns"), std::string::npos) << what;
    }
  }
  // The other columns of such a file still read.
  EXPECT_EQ(values(read_all(fixture("duckdb_uint64_overflow.parquet"), {"id"}), "id"),
            Ints({1, 2, 3}));
}

}  // namespace
}  // namespace ember
