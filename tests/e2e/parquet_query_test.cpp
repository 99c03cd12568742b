// Parquet through queries: projection pushdown (only the read columns are decoded) and row
// groups skipped by their statistics, both visible in explain(), with the same answers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "ember/ember.h"
#include "io/temp_dir.h"

using namespace ember;

namespace {

std::string fixture(const std::string& name) {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env : (std::filesystem::path(__FILE__).parent_path() / "../data").string();
  return data + "/io/parquet/" + name;
}

}  // namespace

TEST(ParquetQuery, OnlyTheColumnsTheQueryReadsAreScanned) {
  const DataFrame df = read_parquet(fixture("duckdb_zstd_v2.parquet"))
                           .where(col("i32") > lit(int64_t{0}))
                           .select({col("id"), col("tags").list_size().alias("n")});
  const std::string plan = df.explain();
  EXPECT_NE(plan.find("columns id, i32, tags)"), std::string::npos) << plan;
  const Table t = df.collect();
  int64_t expected = 0;
  for (int64_t i = 0; i < 600; ++i) expected += i % 7 != 0 && i * 3 - 100 > 0;
  EXPECT_EQ(t.num_rows(), expected);
}

TEST(ParquetQuery, StatisticsSkipRowGroupsThatCannotMatch) {
  // Three files written by ember, 100 rows each in row groups of 25: ids 0..299.
  const testing_io::TempDir tmp;  // one per test: ctest runs tests side by side
  const std::string dir = tmp.file("out");
  ParquetWriteOptions w;
  w.row_group_rows = 25;
  range(300, 3).with_column("x", col("id") * lit(int64_t{2})).write_parquet(dir, w);
  const DataFrame df = read_parquet(dir + "/*.parquet").where(col("id") >= lit(int64_t{280}));
  const std::string plan = df.explain();
  EXPECT_NE(plan.find("12 row groups, 11 skipped by statistics"), std::string::npos) << plan;
  const Table t = df.collect();
  ASSERT_EQ(t.num_rows(), 20);
  EXPECT_EQ(t.column("x").get(0), Value(int64_t{560}));
}

TEST(ParquetQuery, UnsignedStatisticsAboveInt64MaxSkipNothing) {
  // DuckDB's statistics for u are 5 and 18446744073709551615: read as a signed bound the
  // maximum would be -1, ruling out u > 10 and hiding the value that does not fit in int64.
  const DataFrame df =
      read_parquet(fixture("duckdb_uint64_overflow.parquet")).where(col("u") > lit(int64_t{10}));
  EXPECT_EQ(df.explain().find("skipped by statistics"), std::string::npos) << df.explain();
  EXPECT_THROW(df.collect(), ParseError);
}

TEST(ParquetQuery, RenamedDuplicateColumnsArePrunedToTheRightOne) {
  const Table t = read_parquet(fixture("duplicate_names.parquet"))
                      .select({col("dupname_x_1").alias("second"), col("dupname_x")})
                      .collect();
  EXPECT_EQ(t.column("second").get(0), Value(int64_t{2}));
  EXPECT_EQ(t.column("dupname_x").get(0), Value(int64_t{1}));
}

namespace {

/// 400 rows in 2 files of row groups of 50: id, and s = struct<a: id, b: "v<id>", blob: 2 KiB
/// of pseudo-random bytes>.
std::string struct_files(const testing_io::TempDir& tmp) {
  const std::string dir = tmp.file("out");
  ColumnBuilder ids(int64()), a(int64()), b(utf8()), blob(binary());
  for (int64_t i = 0; i < 400; ++i) {
    ids.append(i);
    a.append(i);
    b.append("v" + std::to_string(i));
    std::string bytes(2048, '\0');  // incompressible: a linear congruential sequence
    uint64_t x = static_cast<uint64_t>(i) + 1;
    for (char& c : bytes)
      c = static_cast<char>((x = x * 6364136223846793005u + 1442695040888963407u) >> 56);
    blob.append(bytes);
  }
  const Column s =
      Column::struct_of({{"a", a.finish()}, {"b", b.finish()}, {"blob", blob.finish()}});
  const Schema schema({{"id", int64()}, {"s", s.type()}});
  ParquetWriteOptions w;
  w.row_group_rows = 50;
  from_table(Table(schema, {Batch(schema, {ids.finish(), s})}), 2).write_parquet(dir, w);
  return dir;
}

}  // namespace

TEST(ParquetQuery, AStructReadThroughSomeFieldsReadsOnlyTheirLeaves) {
  const testing_io::TempDir tmp;
  const std::string dir = struct_files(tmp);
  const DataFrame fields = read_parquet(dir + "/*.parquet")
                               .where(col("s").field("a") >= lit(int64_t{350}))
                               .select({col("id"), col("s").field("b").alias("b")});
  const std::string plan = fields.explain();
  EXPECT_NE(plan.find("columns id, s{a, b})"), std::string::npos) << plan;
  // Statistics of the field itself rule out the row groups below 350.
  EXPECT_NE(plan.find("8 row groups, 7 skipped by statistics"), std::string::npos) << plan;
  const QueryResult narrow = fields.execute();
  ASSERT_EQ(narrow.table.num_rows(), 50);
  for (int64_t r = 0; r < 50; ++r) {
    EXPECT_EQ(narrow.table.column("id").get(r), Value(int64_t{350 + r}));
    EXPECT_EQ(narrow.table.column("b").get(r), Value("v" + std::to_string(350 + r)));
  }
  // The same query reading s whole: the same rows, and every blob byte read too.
  const QueryResult whole = read_parquet(dir + "/*.parquet")
                                .where(col("s").field("a") >= lit(int64_t{350}))
                                .select({col("id"), col("s").field("b").alias("b"), col("s")})
                                .execute();
  ASSERT_EQ(whole.table.num_rows(), 50);
  EXPECT_EQ(whole.table.column("b").get(7), narrow.table.column("b").get(7));
  EXPECT_EQ(whole.table.column("s").type().fields().size(), 3u);
  const int64_t narrow_bytes = narrow.stats.ranks.at(0).bytes_read;
  const int64_t whole_bytes = whole.stats.ranks.at(0).bytes_read;
  EXPECT_GT(narrow_bytes, 0);
  EXPECT_LT(narrow_bytes * 10, whole_bytes) << narrow_bytes << " vs " << whole_bytes;
}

TEST(ParquetQuery, AStructUsedWholeAnywhereIsReadWhole) {
  const testing_io::TempDir tmp;
  const std::string dir = struct_files(tmp);
  // Filtered on a field, but the struct itself is in the output.
  const DataFrame df =
      read_parquet(dir + "/*.parquet").where(col("s").field("a") < lit(int64_t{3}));
  EXPECT_NE(df.explain().find("columns id, s)"), std::string::npos) << df.explain();
  const Table t = df.collect();
  ASSERT_EQ(t.num_rows(), 3);
  EXPECT_EQ(t.column("s").type().fields().size(), 3u);
  // Through a sort the rule does not follow the column: read whole, answers unchanged.
  const Table sorted = read_parquet(dir + "/*.parquet")
                           .sort({SortKey{col("id"), true}})
                           .select({col("s").field("a").alias("a")})
                           .limit(2)
                           .collect();
  EXPECT_EQ(sorted.column("a").get(0), Value(int64_t{399}));
}

TEST(ParquetQuery, DateStatisticsSkipRowGroupsOnADateLiteral) {
  const testing_io::TempDir tmp;
  const std::string dir = tmp.file("out");
  ColumnBuilder days(date32());
  for (int32_t i = 0; i < 100; ++i) days.append(Date{19000 + i});  // 2022-01-08 on
  const Schema schema({{"d", date32()}});
  ParquetWriteOptions w;
  w.row_group_rows = 25;
  from_table(Table(schema, {Batch(schema, {days.finish()})})).write_parquet(dir, w);
  const DataFrame df = read_parquet(dir + "/*.parquet").where(col("d") >= lit_date("2022-04-10"));
  EXPECT_NE(df.explain().find("4 row groups, 3 skipped by statistics"), std::string::npos)
      << df.explain();
  const Table t = df.collect();
  ASSERT_EQ(t.num_rows(), 8);  // 2022-04-10 is day 19092: days 19092..19099
  EXPECT_EQ(t.column("d").get(0), Value(Date{19092}));
  // A date column compared with a timestamp is not skipped on days read as microseconds.
  const DataFrame ts =
      read_parquet(dir + "/*.parquet")
          .where(col("d").cast(timestamp_us()) >= lit_timestamp("2022-04-10T00:00:00"));
  EXPECT_EQ(ts.collect().num_rows(), 8);
}
