// Reading and writing files through whole queries.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "ember/ember.h"
#include "io/temp_dir.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  static const testing_io::TempDir root;  // removed, with every test's folder, at exit
  fs::path d = fs::path(root.path()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Table sample(int64_t n) {
  std::vector<int64_t> id;
  std::vector<std::optional<double>> x;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<bool>> b;
  for (int64_t i = 0; i < n; ++i) {
    id.push_back(i);
    x.push_back(i % 5 == 0 ? std::nullopt : std::optional<double>(i * 0.5));
    s.push_back(i % 7 == 0 ? std::nullopt
                           : std::optional<std::string>(i % 2 ? "a,\"b\"\nc" + std::to_string(i)
                                                              : "plain" + std::to_string(i)));
    b.push_back(i % 3 == 0 ? std::nullopt : std::optional<bool>(i % 2 == 0));
  }
  return Table::from_columns({{"id", Column::from(id)},
                              {"x", Column::from(x)},
                              {"s", Column::from(s)},
                              {"b", Column::from(b)}});
}

void expect_same(const Table& a, const Table& b) {
  ASSERT_EQ(a.num_rows(), b.num_rows());
  ASSERT_EQ(a.schema(), b.schema()) << a.schema().to_string() << " vs " << b.schema().to_string();
  for (const auto& f : a.schema().fields()) {
    Column ca = a.column(f.name), cb = b.column(f.name);
    for (int64_t i = 0; i < ca.size(); ++i)
      ASSERT_EQ(to_string(ca.get(i)), to_string(cb.get(i))) << f.name << " row " << i;
  }
}

}  // namespace

TEST(FileQuery, CsvRoundTripOneFilePerPartition) {
  fs::path dir = fresh_dir("csv");
  Table t = sample(5000);
  from_table(t, 3).write_csv(dir.string());
  int files = 0;
  EXPECT_TRUE(fs::is_regular_file(dir / "_SUCCESS"));
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() == "_SUCCESS") continue;
    EXPECT_EQ(e.path().extension(), ".csv") << e.path();
    EXPECT_EQ(e.path().filename().string().rfind("part-", 0), 0u) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 3);
  expect_same(t, read_csv((dir / "part-*.csv").string()).collect());
}

TEST(FileQuery, JsonlRoundTrip) {
  fs::path dir = fresh_dir("jsonl");
  Table t = sample(3000);
  from_table(t, 2).write_jsonl(dir.string());
  expect_same(t, read_jsonl((dir / "*.jsonl").string()).collect());
}

TEST(FileQuery, ReadFilterWriteStreams) {
  fs::path in = fresh_dir("stream_in"), out = fresh_dir("stream_out");
  range(200000, 4).with_column("y", col("id") * lit(int64_t{2})).write_csv(in.string());
  read_csv((in / "*.csv").string())
      .where(col("id") % lit(int64_t{10}) == lit(int64_t{0}))
      .write_csv(out.string());
  Table back = read_csv((out / "*.csv").string()).collect();
  ASSERT_EQ(back.num_rows(), 20000);
  Column y = back.column("y");
  for (int64_t i = 0; i < y.size(); ++i) ASSERT_EQ(y.value<int64_t>(i), i * 20);
}

TEST(FileQuery, SplitCsvWithQuotedNewlinesAfterTheSampleGivesTheSameRows) {
  // The first quoted newline comes long after the inference sample, and the file is cut into
  // many small splits read in parallel: every split must still start on a record.
  fs::path dir = fresh_dir("csv_split_quotes");
  {
    std::ofstream out(dir / "t.csv", std::ios::binary);
    out << "id,text\n";
    for (int i = 0; i < 3000; ++i) {
      out << i << (i < 1500 ? ",plain\n" : ",\"a\nb,\"\"c\"\"\r\nd\"\n");
    }
  }
  CsvOptions split;
  split.split_bytes = 1000;
  CsvOptions whole;
  whole.split_bytes = 0;
  RunOptions run;
  run.threads = 4;
  const Table a = read_csv((dir / "t.csv").string(), split).collect(run);
  const Table b = read_csv((dir / "t.csv").string(), whole).collect(run);
  ASSERT_EQ(a.num_rows(), 3000);
  expect_same(a, b);
  EXPECT_EQ(a.column("text").value<std::string>(2999), "a\nb,\"c\"\r\nd");
}

TEST(FileQuery, MissingFileIsIoError) {
  try {
    read_csv("/nonexistent/dir/*.csv");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir"), std::string::npos) << e.what();
  }
}

TEST(FileQuery, RaggedCsvIsParseErrorWithFileAndLine) {
  fs::path dir = fresh_dir("ragged");
  std::ofstream(dir / "bad.csv") << "a,b\n1,2\n3\n";
  try {
    read_csv((dir / "bad.csv").string()).collect();
    FAIL();
  } catch (const ParseError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("bad.csv:3:"), std::string::npos) << m;
  }
}

TEST(FileQuery, UnwritableOutputIsIoErrorAndLeavesNothing) {
  fs::path dir = fresh_dir("unwritable");
  std::ofstream(dir / "file") << "x";
  EXPECT_THROW(range(10).write_csv((dir / "file" / "out").string()), IoError);
  EXPECT_FALSE(fs::exists(dir / "file" / "out"));
}

// Dates keep their type through Parquet (DATE) and Arrow (date32) files, and are written as
// YYYY-MM-DD text to CSV and JSON lines, which a cast reads back.
TEST(FileQuery, DatesRoundTripThroughEveryFormat) {
  std::vector<std::optional<Date>> days;
  std::vector<int64_t> id;
  for (int64_t i = 0; i < 3000; ++i) {
    id.push_back(i);
    days.push_back(i % 9 == 0 ? std::nullopt : std::optional<Date>(Date{int32_t(i * 37 - 40000)}));
  }
  const Table t = Table::from_columns({{"id", Column::from(id)}, {"d", Column::from(days)}});
  const fs::path dir = fresh_dir("dates");
  from_table(t, 3).write_parquet((dir / "pq").string());
  expect_same(
      read_parquet((dir / "pq" / "*.parquet").string()).sort({SortKey{col("id")}}).collect(), t);
  from_table(t, 2).write_arrow((dir / "arrow").string(), ArrowWriteOptions{Compression::Zstd});
  EXPECT_THROW(
      from_table(t).write_arrow((dir / "gz").string(), ArrowWriteOptions{Compression::Gzip}),
      InvalidArgument);
  expect_same(read_arrow((dir / "arrow" / "*.arrow").string()).sort({SortKey{col("id")}}).collect(),
              t);
  ArrowWriteOptions stream{Compression::Lz4};
  stream.stream = true;  // the IPC stream format, part-NNNNN.arrows
  from_table(t, 2).write_arrow((dir / "arrows").string(), stream);
  EXPECT_TRUE(fs::exists(dir / "arrows" / "part-00001.arrows"));
  expect_same(
      read_arrow((dir / "arrows" / "*.arrows").string()).sort({SortKey{col("id")}}).collect(), t);
  from_table(t, 2).write_csv((dir / "csv").string());
  const Table csv = read_csv((dir / "csv" / "*.csv").string())
                        .with_column("d", col("d").cast(date32()))
                        .sort({SortKey{col("id")}})
                        .collect();
  expect_same(csv, t);
  from_table(t, 2).write_jsonl((dir / "jsonl").string());
  std::ifstream first((dir / "jsonl" / "part-00000.jsonl").string());
  std::string line;
  std::getline(first, line);
  std::getline(first, line);
  EXPECT_EQ(line, "{\"id\":1,\"d\":\"1860-08-02\"}");  // day -39963
  // Filters on dates skip nothing wrongly: every row of a range, none outside it.
  const Table some =
      read_parquet((dir / "pq" / "*.parquet").string())
          .where(col("d") >= lit_date("1900-01-01") && col("d") < lit_date("1950-01-01"))
          .collect();
  int64_t want = 0;
  for (const auto& d : days) {
    want += d && d->days >= -25567 && d->days < -7305;  // 1900-01-01 and 1950-01-01
  }
  EXPECT_EQ(some.num_rows(), want);
  fs::remove_all(dir);
}
