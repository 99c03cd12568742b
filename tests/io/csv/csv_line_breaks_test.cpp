// CSV line breaks: a record ends at \n, \r\n or a lone \r (old Mac files), a quoted field may
// hold any of them, and error line numbers count each of them as one line break.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_io::csv_error;
using testing_io::error_of;
using testing_io::read_csv_table;
using testing_io::TempDir;

TEST(CsvLineBreaks, CarriageReturnOnlyFile) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\r1,x\r2,y\r\r3,z");
  const Table t = read_csv_table(p);
  EXPECT_EQ(t.schema(), Schema({{"a", int64()}, {"b", utf8()}}));
  ASSERT_EQ(t.num_rows(), 3);
  EXPECT_EQ(t.column("a").value<int64_t>(2), 3);
  EXPECT_EQ(t.column("b").value<std::string>(1), "y");
}

TEST(CsvLineBreaks, LongCarriageReturnOnlyFileTakesTheFastPath) {
  TempDir dir;
  // Rows of varying width put the \r at every offset of the 64-byte blocks.
  std::string content = "id,word,x\r";
  for (int i = 0; i < 5000; ++i) {
    content += std::to_string(i) + "," + std::string(size_t(i % 13), 'w') + "," +
               std::to_string(i % 7) + ".5\r";
  }
  const std::string p = dir.write("t.csv", content);
  for (int64_t split : {int64_t{0}, int64_t{1000}}) {
    CsvOptions options;
    options.split_bytes = split;
    const Table t = read_csv_table(p, options, 777);
    ASSERT_EQ(t.num_rows(), 5000);
    for (int64_t i = 0; i < 5000; ++i) {
      ASSERT_EQ(t.column("id").value<int64_t>(i), i);
      if (i % 13 == 0) {
        ASSERT_TRUE(t.column("word").is_null(i));
      } else {
        ASSERT_EQ(t.column("word").value<std::string>(i), std::string(size_t(i % 13), 'w'));
      }
      ASSERT_EQ(t.column("x").value<double>(i), double(i % 7) + 0.5);
    }
  }
}

TEST(CsvLineBreaks, CrLfWhoseLineFeedStartsTheNextBlock) {
  TempDir dir;
  // Records of 33 bytes put their "\r\n" at every offset of the 64-byte blocks in turn, so
  // some \r is the last byte of a block and its \n the first of the next.
  std::string content = "h,k\r\n";
  for (int i = 0; i < 300; ++i) {
    const std::string n = std::to_string(1000 + i);
    content += std::string(26, 'v') + "," + n + "\r\n";
  }
  const std::string p = dir.write("t.csv", content);
  const Table t = read_csv_table(p);
  ASSERT_EQ(t.num_rows(), 300);
  for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(t.column("k").value<int64_t>(i), 1000 + i);
}

TEST(CsvLineBreaks, MixedLineEndsInOneFile) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n1,x\r\n2,y\r3,z\n4,\"w\"\r5,v");
  const Table t = read_csv_table(p);
  ASSERT_EQ(t.num_rows(), 5);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(t.column("a").value<int64_t>(i), i + 1);
  EXPECT_EQ(t.column("b").value<std::string>(3), "w");
}

TEST(CsvLineBreaks, QuotedFieldsKeepEveryKindOfLineBreak) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\r1,\"x\ry\"\r2,\"p\r\nq\"\r3,\"m\nn\"\r4,\"\r\"\r");
  const Table t = read_csv_table(p);
  ASSERT_EQ(t.num_rows(), 4);
  EXPECT_EQ(t.column("b").value<std::string>(0), "x\ry");
  EXPECT_EQ(t.column("b").value<std::string>(1), "p\r\nq");
  EXPECT_EQ(t.column("b").value<std::string>(2), "m\nn");
  EXPECT_EQ(t.column("b").value<std::string>(3), "\r");
}

TEST(CsvLineBreaks, ErrorLinesCountLoneCarriageReturns) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n\r1\r2\r3\rbad\r5\r");
  CsvOptions options;
  options.infer_rows = 2;
  const std::string msg = csv_error(p, options);
  EXPECT_THAT(msg, StartsWith(p + ":5:1:"));
  EXPECT_THAT(msg, HasSubstr("'bad'"));
}

TEST(CsvLineBreaks, ErrorLinesCountEachLineEndOnce) {
  TempDir dir;
  // Lines: 1 header, 2 "1", 3 "2", 4 "3", 5 "4", 6 "x".
  const std::string p = dir.write("t.csv", "n\n1\r\n2\r3\n4\r\nx\r");
  CsvOptions options;
  options.schema = Schema({{"n", int64()}});
  EXPECT_THAT(csv_error(p, options), StartsWith(p + ":6:1:"));
}

TEST(CsvLineBreaks, ErrorLineAfterAQuotedCarriageReturn) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\r\"x\ry\",1\r\"z\",oops\r");
  CsvOptions options;
  options.schema = Schema({{"a", utf8()}, {"b", int64()}});
  EXPECT_THAT(csv_error(p, options), StartsWith(p + ":4:2:"));
}

TEST(CsvLineBreaks, ErrorLineInALongCarriageReturnOnlyFile) {
  TempDir dir;
  std::string content = "n\r";
  for (int i = 0; i < 3000; ++i) content += std::to_string(i) + "\r";
  content += "nope\r";  // line 3002
  for (int i = 0; i < 10; ++i) content += "1\r";
  const std::string p = dir.write("t.csv", content);
  for (int64_t split : {int64_t{0}, int64_t{1000}}) {
    CsvOptions options;
    options.split_bytes = split;
    EXPECT_THAT(csv_error(p, options), StartsWith(p + ":3002:1:"));
  }
}

}  // namespace
}  // namespace ember
