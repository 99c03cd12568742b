// The API's shape: literals beside operators, group_by by name, writes that return the query's
// stats, options for every reader, and the library's version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/ember.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using testing_io::TempDir;

std::vector<int64_t> ints(const Table& t, const std::string& name) {
  std::vector<int64_t> out;
  const Column& c = t.column(name);
  for (int64_t i = 0; i < t.num_rows(); ++i) out.push_back(c.value<int64_t>(i));
  return out;
}

/// Triples its argument; counts its constructions.
std::atomic<int> g_tripler_inits{0};
struct Tripler {
  explicit Tripler(const InitArgs&) { ++g_tripler_inits; }
  Column operator()(const Batch& in) const {
    ColumnBuilder out(int64());
    const Column& x = in.column(0);
    for (int64_t i = 0; i < in.num_rows(); ++i) out.append(int64_t{3 * x.value<int64_t>(i)});
    return out.finish();
  }
};

// A value is a literal only beside an operator: Expr never converts from one, so a column name
// is never taken for a string literal (nor a string for a column).
static_assert(!std::is_convertible_v<const char*, Expr>);
static_assert(!std::is_convertible_v<std::string, Expr>);
static_assert(!std::is_convertible_v<int, Expr>);
static_assert(!std::is_convertible_v<double, Expr>);
static_assert(!LiteralValue<Expr> && !LiteralValue<std::nullptr_t>);
static_assert(LiteralValue<int> && LiteralValue<const char (&)[3]> && LiteralValue<float>);

TEST(ApiEdges, PlainValuesBesideAnOperatorAreLiterals) {
  const DataFrame df = range(10).with_column("s", (col("id") % 2 == 0).cast(utf8()));
  EXPECT_EQ(ints(df.where(col("id") > 5).collect(), "id"),
            ints(df.where(col("id") > lit(int64_t{5})).collect(), "id"));
  EXPECT_EQ(ints(df.where(7 < col("id")).collect(), "id"), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(ints(df.where(col("s") == "true" && col("id") >= 6).collect(), "id"),
            (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(ints(df.where(col("s") != std::string("true")).limit(2).collect(), "id"),
            (std::vector<int64_t>{1, 3}));
  const Table scaled = range(3).select({(col("id") * 2.5).alias("x")}).collect();
  EXPECT_EQ(scaled.schema().field(0).type, float64());
  EXPECT_DOUBLE_EQ(scaled.column("x").value<double>(2), 5.0);
  EXPECT_EQ((col("id") + 1).to_string(), (col("id") + lit(int64_t{1})).to_string());
  EXPECT_EQ((10 - col("id")).to_string(), (lit(int64_t{10}) - col("id")).to_string());
  EXPECT_EQ((col("b") || false).to_string(), (col("b") || lit(false)).to_string());
}

TEST(ApiEdges, GroupByTakesColumnNames) {
  const DataFrame df = range(12).with_column("k1", col("id") % 2).with_column("k2", col("id") % 3);
  const Table by_name = df.group_by({"k1", "k2"}).agg({col("id").sum()}).collect();
  const Table by_expr = df.group_by({col("k1"), col("k2")}).agg({col("id").sum()}).collect();
  const Table one = df.group_by({"k1"}).agg({col("id").count()}).collect();
  const std::vector<std::string> names{"k2", "k1"};
  const Table from_vector = df.group_by(names).agg({col("id").sum()}).collect();
  EXPECT_EQ(by_name.num_rows(), 6);
  EXPECT_EQ(ints(by_name, "id"), ints(by_expr, "id"));
  EXPECT_EQ(ints(one, "id"), (std::vector<int64_t>{6, 6}));
  EXPECT_EQ(from_vector.schema().field(0).name, "k2");
  EXPECT_THROW(df.group_by({"nope"}).agg({col("id").sum()}), InvalidArgument);
}

TEST(ApiEdges, EveryWriteReturnsTheQuerysStats) {
  TempDir dir;
  g_tripler_inits = 0;
  const Udf triple = Udf::cls<Tripler>("tripler").returns(int64()).concurrency(2);
  const DataFrame df = range(100, 4).with_column("y", triple(col("id")));
  const QueryResult csv = df.write_csv(dir.file("csv"));
  const QueryResult jsonl = df.write_jsonl(dir.file("jsonl"), {});
  const QueryResult parquet = df.write_parquet(dir.file("parquet"), {}, {});
  const QueryResult arrow = df.write_arrow(dir.file("arrow"), ArrowWriteOptions{}, RunOptions{});
  for (const QueryResult* r : {&csv, &jsonl, &parquet, &arrow}) {
    EXPECT_EQ(r->stats.rows_out, 100);
    ASSERT_EQ(r->stats.udfs.size(), 1u);
    EXPECT_EQ(r->stats.udfs[0].name, "tripler");
    EXPECT_EQ(r->stats.udfs[0].rows, 100);
    EXPECT_EQ(r->stats.udfs[0].inits, 2);
    EXPECT_EQ(r->table.num_rows(), 0);
  }
  EXPECT_EQ(g_tripler_inits.load(), 8);  // each write ran its query once
  EXPECT_EQ(read_csv(dir.file("csv") + "/*.csv").collect().num_rows(), 100);
  EXPECT_EQ(read_jsonl(dir.file("jsonl") + "/*.jsonl").collect().num_rows(), 100);
  EXPECT_EQ(read_arrow(dir.file("arrow") + "/*.arrow", ArrowOptions{}).collect().num_rows(), 100);
}

TEST(ApiEdges, ReadJsonlTakesItsOptions) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "{\"a\": " + std::to_string(i) + "}\n";
  // A key that appears only past the sample is not a column of the inferred schema.
  text += "{\"a\": 1, \"late\": \"x\"}\n";
  const std::string p = dir.write("t.jsonl", text);
  EXPECT_EQ(read_jsonl(p).schema().fields().size(), 1u);
  JsonlOptions all;
  all.infer_rows = 5000;
  EXPECT_EQ(read_jsonl(p, all).schema().fields().size(), 2u);
  JsonlOptions small_splits;
  small_splits.split_bytes = 4096;
  const DataFrame split = read_jsonl(p, small_splits);
  std::smatch m;
  const std::string plan = split.explain();
  ASSERT_TRUE(std::regex_search(plan, m, std::regex(R"(\(1 files, ([0-9]+) partitions\))")))
      << plan;
  EXPECT_GE(std::stoi(m[1]), 5) << plan;
  EXPECT_EQ(split.collect().num_rows(), 2001);
  EXPECT_EQ(read_jsonl(p).collect().num_rows(), 2001);
  JsonlOptions bad;
  bad.infer_rows = 0;
  try {
    read_jsonl(p, bad);
    FAIL() << "infer_rows = 0 was taken";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("JsonlOptions::infer_rows must be >= 1"));
  }
  bad = JsonlOptions{};
  bad.split_bytes = -1;
  EXPECT_THROW(read_jsonl(p, bad), InvalidArgument);
}

TEST(ApiEdges, VersionIsTheProjectVersion) {
  EXPECT_TRUE(std::regex_match(version(), std::regex(R"([0-9]+\.[0-9]+\.[0-9]+)"))) << version();
  EXPECT_EQ(version(), EMBER_EXPECTED_VERSION);
}

}  // namespace
}  // namespace ember
