// Arrow IPC integers of every width, signed and unsigned, read as the Parquet reader reads the
// same annotations (int8/16 and uint8/16 as int32, uint32 and uint64 as int64); a uint64 value
// above 2^63 - 1 is a ParseError naming the file, record batch and column. And a schema that
// names two columns alike reads them as x, x_1, as the Parquet reader does.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>

#include "io/arrow/arrow_scan.h"

namespace ember {
namespace {

std::string fixture(const std::string& name) {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env
                     : (std::filesystem::path(__FILE__).parent_path() / "../../data").string();
  return data + "/io/arrow/" + name;
}

Table read_all(const std::string& path) {
  const ArrowScan scan = plan_arrow_scan(path);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_arrow_part(scan, static_cast<int>(p), 100);
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

TEST(ArrowIntegers, EveryWidthAtItsExtremes) {
  const Table t = read_all(fixture("integer_extremes.arrow"));
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

TEST(ArrowIntegers, Uint64AboveInt64MaxIsAParseErrorNamingFileBatchAndColumn) {
  const std::string path = fixture("uint64_overflow.arrow");
  try {
    const Table t = read_all(path);
    FAIL() << "read as " << t.to_string();
  } catch (const ParseError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ": record batch 0: column 'u': unsigned value "
                               "18446744073709551615 does not fit in int64"),
              std::string::npos)
        << what;
  }
}

TEST(ArrowDuplicateNames, RepeatsAreRenamedAsInParquet) {
  const Table t = read_all(fixture("duplicate_names.arrow"));
  EXPECT_EQ(t.schema().to_string(), "x: int64, x_1: int64");
  EXPECT_EQ(values(t, "x"), Ints({1}));
  EXPECT_EQ(values(t, "x_1"), Ints({2}));
}

}  // namespace
}  // namespace ember
