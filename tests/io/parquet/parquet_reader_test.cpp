// Reading DuckDB-written Parquet (checked-in files of 600 rows, one row group each: page v1
// and v2, PLAIN, dictionary, DELTA and BYTE_STREAM_SPLIT encodings, four codecs): every value
// of every type, projection, and corrupt files failing with the file's name, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "interop/parquet_expectations.h"
#include "io/parquet/parquet_scan.h"
#include "io/parquet/rewritten_footer.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

std::string data_dir() {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env
                     : (std::filesystem::path(__FILE__).parent_path() / "../../data").string();
  return data + "/io/parquet/";
}

Table read_all(const std::string& glob, const std::vector<std::string>& columns = {},
               int64_t batch_rows = 100) {
  const ParquetScan scan = plan_parquet_scan(glob, columns);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_parquet_part(scan, static_cast<int>(p), batch_rows);
    while (auto b = reader->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

class DuckdbFile : public testing::TestWithParam<std::string> {};

TEST_P(DuckdbFile, EveryValueOfEveryTypeMatches) {
  const std::string path = data_dir() + GetParam();
  const ParquetScan scan = plan_parquet_scan(path, {});
  EXPECT_EQ(scan.parts.size(), scan.files[0]->meta.row_groups.size()) << "one per row group";
  EXPECT_EQ(scan.schema.to_string(),
            "id: int64, i32: int32, f64: float64, f32: float32, s: utf8, u: utf8, b: bool, "
            "ts: timestamp[us], i16: int32, dec: float64, d: date32, bin: binary, "
            "xs: list<int64>, tags: list<utf8>, emb: list<float32>");
  EXPECT_EQ(interop::duckdb_mismatch(read_all(path), 600), "");
}

INSTANTIATE_TEST_SUITE_P(Parquet, DuckdbFile,
                         testing::Values("duckdb_snappy_v1.parquet", "duckdb_zstd_v2.parquet",
                                         "duckdb_gzip_v1.parquet", "duckdb_lz4_raw_v1.parquet"));

TEST(ParquetReader, ReadsOnlyTheNamedColumnsInTheirOrder) {
  const Table t = read_all(data_dir() + "duckdb_zstd_v2.parquet", {"tags", "id"});
  EXPECT_EQ(t.schema().to_string(), "tags: list<utf8>, id: int64");
  EXPECT_EQ(t.column("id").get(599), Value(int64_t{599}));
  try {
    plan_parquet_scan(data_dir() + "duckdb_zstd_v2.parquet", {"nope"});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no column 'nope'; columns are: id, i32"),
              std::string::npos)
        << e.what();
  }
}

TEST(ParquetReader, BadMagicAndTruncationAreParseErrorsNamingTheFile) {
  testing_io::TempDir dir;
  const std::string path = dir.write("x.parquet", "PAR1 this is not parquet at all PAR2");
  try {
    plan_parquet_scan(path, {});
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": not a Parquet file (bad magic"),
              std::string::npos);
  }
  std::ifstream in(data_dir() + "duckdb_snappy_v1.parquet", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.write("cut.parquet", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(plan_parquet_scan(cut, {}), ParseError);
}

TEST(ParquetReader, CorruptBytesGiveErrorsNotCrashes) {
  std::ifstream in(data_dir() + "duckdb_zstd_v2.parquet", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  testing_io::TempDir dir;
  std::mt19937 rng(7);
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string damaged = bytes;
    for (int k = 0; k < 1 + trial % 4; ++k) {
      const size_t at = rng() % damaged.size();
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << (rng() % 8)));
    }
    const std::string path = dir.write("d" + std::to_string(trial) + ".parquet", damaged);
    try {
      read_all(path);
    } catch (const ParseError& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    } catch (const InvalidArgument& e) {
      ++errors;  // e.g. a column name or type changed by the damage
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(ParquetReader, ErrorsInAColumnNameTheRowGroupAndColumn) {
  std::ifstream in(data_dir() + "duckdb_snappy_v1.parquet", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Overwrite the first data page (the first column chunk starts at byte 4) with zeros.
  for (size_t i = 4; i < 40; ++i) bytes[i] = '\x7f';
  testing_io::TempDir dir;
  const std::string path = dir.write("z.parquet", bytes);
  try {
    read_all(path, {"id"});
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": row group 0, column 'id': "), std::string::npos)
        << e.what();
  }
}

// DECIMAL belongs on integers and byte arrays: on a FLOAT or BOOLEAN column (4 bytes and 1 a
// value) reading the values as 8-byte integers would read past them.
TEST(ParquetReader, DecimalOnAColumnThatIsNoIntegerIsAParseError) {
  testing_io::TempDir dir;
  const Table t = Table::from_columns({{"f", Column::from(std::vector<float>{1.5f, 2.5f})},
                                       {"b", Column::from(std::vector<bool>{true, false})}});
  for (const std::string column : {"f", "b"}) {
    const std::string path = testing_io::write_parquet_with_footer(
        dir, column + ".parquet", t, [&](parquet::FileMetaData& m) {
          testing_io::schema_element(m, column).converted = parquet::kDecimal;
        });
    try {
      const Table read = read_all(path, {column});
      FAIL() << path << " read as " << read.to_string();
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a DECIMAL column '" + column +
                                           "' that is not INT32, INT64 or a byte array"),
                std::string::npos)
          << e.what();
    }
  }
  // Annotated on an integer, the values read as decimals (float64) as before.
  const Table ints = Table::from_columns({{"d", Column::from(std::vector<int64_t>{125, -5})}});
  const std::string path =
      testing_io::write_parquet_with_footer(dir, "d.parquet", ints, [](parquet::FileMetaData& m) {
        testing_io::schema_element(m, "d").converted = parquet::kDecimal;
      });
  const Table read = read_all(path);
  EXPECT_EQ(read.schema().to_string(), "d: float64");
  EXPECT_EQ(read.column("d").get(0), Value(125.0));
  EXPECT_EQ(read.column("d").get(1), Value(-5.0));
}

}  // namespace
}  // namespace ember
