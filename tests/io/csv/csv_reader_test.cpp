// read_csv features: inference, explicit schema, quoting, nulls, globs, batches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_io::error_of;
using testing_io::read_csv_table;
using testing_io::TempDir;

std::vector<std::optional<std::string>> strings_of(const Table& t, const std::string& name) {
  const Column c = t.column(name);
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i)) {
      out.push_back(std::nullopt);
    } else {
      out.push_back(c.value<std::string>(i));
    }
  }
  return out;
}

TEST(CsvReader, InfersEachColumnsType) {
  TempDir dir;
  const std::string p = dir.write("t.csv",
                                  "i,f,b,s,mixed,empty\n"
                                  "1,1.5,true,abc,1,\n"
                                  "-7,2,FALSE,4,2.5,\n"
                                  "42,-3e2,True,x y,3,\n");
  const Table t = read_csv_table(p);
  const Schema expected({{"i", int64()},
                         {"f", float64()},
                         {"b", boolean()},
                         {"s", utf8()},
                         {"mixed", float64()},
                         {"empty", utf8()}});
  EXPECT_EQ(t.schema(), expected);
  ASSERT_EQ(t.num_rows(), 3);
  EXPECT_EQ(t.column("i").value<int64_t>(1), -7);
  EXPECT_EQ(t.column("f").value<double>(2), -300.0);
  EXPECT_EQ(t.column("b").value<bool>(1), false);
  EXPECT_EQ(t.column("b").value<bool>(2), true);
  EXPECT_EQ(t.column("s").value<std::string>(2), "x y");
  EXPECT_EQ(t.column("mixed").value<double>(1), 2.5);
  EXPECT_TRUE(t.column("empty").is_null(0));
}

TEST(CsvReader, EmptyIsNullAndQuotedEmptyIsEmptyStringForUtf8Only) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n,s\n1,a\n,\n\"\",\"\"\n3,\"\"\n");
  const Table t = read_csv_table(p);
  EXPECT_EQ(t.schema(), Schema({{"n", int64()}, {"s", utf8()}}));
  const Column n = t.column("n");
  EXPECT_FALSE(n.is_null(0));
  EXPECT_TRUE(n.is_null(1));
  EXPECT_TRUE(n.is_null(2));
  EXPECT_EQ(n.value<int64_t>(3), 3);
  using S = std::optional<std::string>;
  EXPECT_EQ(strings_of(t, "s"), (std::vector<S>{"a", std::nullopt, "", ""}));
}

TEST(CsvReader, QuotedFieldsWithDelimitersQuotesAndNewlines) {
  TempDir dir;
  const std::string p = dir.write("t.csv",
                                  "id,text\r\n"
                                  "1,\"a,b\"\r\n"
                                  "2,\"say \"\"hi\"\"\"\r\n"
                                  "3,\"line1\nline2\"\r\n"
                                  "4,\"crlf\r\ninside\"\r\n"
                                  "5,plain\r\n");
  const Table t = read_csv_table(p);
  using S = std::optional<std::string>;
  EXPECT_EQ(strings_of(t, "text"),
            (std::vector<S>{"a,b", "say \"hi\"", "line1\nline2", "crlf\r\ninside", "plain"}));
  EXPECT_EQ(t.column("id").value<int64_t>(4), 5);
}

TEST(CsvReader, LastLineWithoutNewlineAndBlankLines) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n\n1,x\n\r\n2,y");
  const Table t = read_csv_table(p);
  ASSERT_EQ(t.num_rows(), 2);
  EXPECT_EQ(t.column("a").value<int64_t>(1), 2);
  EXPECT_EQ(t.column("b").value<std::string>(1), "y");
}

TEST(CsvReader, ExplicitSchemaSkipsInferenceAndNamesColumns) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "x,y\n1,2\n3,\n");
  CsvOptions options;
  options.schema = Schema({{"code", utf8()}, {"val", float64()}});
  const Table t = read_csv_table(p, options);
  EXPECT_EQ(t.schema(), *options.schema);
  EXPECT_EQ(t.column("code").value<std::string>(1), "3");
  EXPECT_EQ(t.column("val").value<double>(0), 2.0);
  EXPECT_TRUE(t.column("val").is_null(1));
}

TEST(CsvReader, ExplicitSchemaMustMatchTheHeaderWidth) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "x,y\n1,2\n");
  CsvOptions options;
  options.schema = Schema({{"only", int64()}});
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p, options); });
  EXPECT_THAT(msg, StartsWith(p + ":1:1:"));
  EXPECT_THAT(msg, HasSubstr("2 columns"));
}

TEST(CsvReader, OtherDelimiter) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a;b\n1;\"x;y\"\n");
  CsvOptions options;
  options.delimiter = ';';
  const Table t = read_csv_table(p, options);
  EXPECT_EQ(t.column("a").value<int64_t>(0), 1);
  EXPECT_EQ(t.column("b").value<std::string>(0), "x;y");
}

TEST(CsvReader, GlobReadsEveryFileInOrder) {
  TempDir dir;
  for (int f = 0; f < 3; ++f) {
    std::string content = "k,v\n";
    for (int r = 0; r < 5; ++r)
      content += std::to_string(f * 5 + r) + ",v" + std::to_string(r) + "\n";
    dir.write("part" + std::to_string(f) + ".csv", content);
  }
  const Table t = read_csv_table(dir.file("part*.csv"), {}, 4);
  ASSERT_EQ(t.num_rows(), 15);
  const Column k = t.column("k");
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(k.value<int64_t>(i), i);
}

TEST(CsvReader, HeaderMismatchBetweenFilesNamesTheFile) {
  TempDir dir;
  dir.write("a.csv", "k,v\n1,2\n");
  const std::string bad = dir.write("b.csv", "k,w\n1,2\n");
  const std::string msg = error_of<ParseError>([&] { read_csv_table(dir.file("*.csv")); });
  EXPECT_THAT(msg, StartsWith(bad + ":1:1:"));
  EXPECT_THAT(msg, HasSubstr("k, w"));
}

TEST(CsvReader, HeaderOnlyFileHasZeroRowsOfUtf8) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n");
  const Table t = read_csv_table(p);
  EXPECT_EQ(t.num_rows(), 0);
  EXPECT_EQ(t.schema(), Schema({{"a", utf8()}, {"b", utf8()}}));
}

TEST(CsvReader, HeaderOnlyFirstFileTakesTypesFromTheNext) {
  TempDir dir;
  dir.write("a.csv", "a\n");
  dir.write("b.csv", "a\n5\n");
  const Table t = read_csv_table(dir.file("*.csv"));
  EXPECT_EQ(t.schema(), Schema({{"a", int64()}}));
  EXPECT_EQ(t.num_rows(), 1);
}

TEST(CsvReader, BatchesRespectTheRowLimit) {
  TempDir dir;
  std::string content = "n\n";
  for (int i = 0; i < 1000; ++i) content += std::to_string(i) + "\n";
  const std::string p = dir.write("t.csv", content);
  const Table t = read_csv_table(p, {}, 64);
  EXPECT_EQ(t.num_rows(), 1000);
  EXPECT_EQ(t.batches().size(), 16u);  // ceil(1000 / 64)
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(t.column("n").value<int64_t>(i), i);
}

TEST(CsvReader, RecordLongerThanTheBufferGrowsIt) {
  TempDir dir;
  const std::string big(5 << 20, 'z');  // longer than the 2 MiB read buffer
  const std::string quoted = std::string(3 << 20, 'q') + "\"\"" + "\n,";
  const std::string p =
      dir.write("t.csv", "a,b\n" + big + ",1\n\"" + quoted.substr(0, quoted.size()) + "\",2\n");
  const Table t = read_csv_table(p);
  ASSERT_EQ(t.num_rows(), 2);
  EXPECT_EQ(t.column("a").value<std::string>(0), big);
  EXPECT_EQ(t.column("a").value<std::string>(1), std::string(3 << 20, 'q') + "\"\n,");
  EXPECT_EQ(t.column("b").value<int64_t>(1), 2);
}

TEST(CsvReader, ByteOrderMarkIsNotPartOfTheFirstColumnName) {
  TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  for (const std::string header : {"id,name", "\"id\",name"}) {
    const std::string p = dir.write("t.csv", bom + header + "\n1,x\n2,y\n");
    for (int64_t split : {int64_t{0}, int64_t{4}}) {
      CsvOptions options;
      options.split_bytes = split;
      const Table t = read_csv_table(p, options);
      EXPECT_EQ(t.schema(), Schema({{"id", int64()}, {"name", utf8()}}));
      ASSERT_EQ(t.num_rows(), 2);
      EXPECT_EQ(t.column("id").value<int64_t>(1), 2);
    }
  }
}

TEST(CsvReader, ByteOrderMarkAloneIsAnEmptyFile) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "\xEF\xBB\xBF");
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p); });
  EXPECT_THAT(msg, HasSubstr("empty file"));
}

TEST(CsvReader, DuplicateHeaderNamesAreRejected) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b,a,c,b\n1,2,3,4,5\n");
  const std::string msg = error_of<InvalidArgument>([&] { read_csv_table(p); });
  EXPECT_THAT(msg, HasSubstr(p));
  EXPECT_THAT(msg, HasSubstr("'a'"));
  EXPECT_THAT(msg, HasSubstr("'b'"));
  EXPECT_THAT(msg, HasSubstr("CsvOptions::schema"));
}

TEST(CsvReader, ExplicitSchemaRenamesDuplicateHeaderNames) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,a\n1,2\n");
  CsvOptions options;
  options.schema = Schema({{"a1", int64()}, {"a2", int64()}});
  const Table t = read_csv_table(p, options);
  EXPECT_EQ(t.column("a2").value<int64_t>(0), 2);
}

TEST(CsvReader, ExplicitSchemaWithDuplicateNamesIsRejected) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "x,y\n1,2\n");
  CsvOptions options;
  options.schema = Schema({{"v", int64()}, {"v", int64()}});
  const std::string msg = error_of<InvalidArgument>([&] { read_csv_table(p, options); });
  EXPECT_THAT(msg, HasSubstr("'v'"));
  EXPECT_THAT(msg, HasSubstr("CsvOptions::schema"));
}

TEST(CsvReader, ReadsTheCheckedInSample) {
  // ctest sets EMBER_TEST_DATA; a direct run finds the data beside this source file.
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env : (std::filesystem::path(__FILE__).parent_path() / "../data").string();
  const Table t = read_csv_table(data + "/io/people.csv");
  EXPECT_EQ(
      t.schema(),
      Schema({{"name", utf8()}, {"age", int64()}, {"height", float64()}, {"member", boolean()}}));
  ASSERT_EQ(t.num_rows(), 4);
  EXPECT_EQ(t.column("name").value<std::string>(1), "Brown, Bob");
  EXPECT_TRUE(t.column("age").is_null(2));
  EXPECT_EQ(t.column("name").value<std::string>(3), "Zoë");
}

}  // namespace
}  // namespace ember
