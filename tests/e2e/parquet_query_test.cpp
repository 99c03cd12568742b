// Parquet through queries: projection pushdown (only the read columns are decoded) and row
// groups skipped by their statistics, both visible in explain(), with the same answers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "ember/ember.h"

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
  const std::string dir = (std::filesystem::temp_directory_path() / "ember-pq-stats").string();
  ParquetWriteOptions w;
  w.row_group_rows = 25;
  range(300, 3).with_column("x", col("id") * lit(int64_t{2})).write_parquet(dir, w);
  const DataFrame df = read_parquet(dir + "/*.parquet").where(col("id") >= lit(int64_t{280}));
  const std::string plan = df.explain();
  EXPECT_NE(plan.find("12 row groups, 11 skipped by statistics"), std::string::npos) << plan;
  const Table t = df.collect();
  ASSERT_EQ(t.num_rows(), 20);
  EXPECT_EQ(t.column("x").get(0), Value(int64_t{560}));
  std::filesystem::remove_all(dir);
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
