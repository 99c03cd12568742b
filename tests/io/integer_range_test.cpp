// Integers beyond int64 in CSV and JSON lines: never rounded to float64 in silence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_io::error_of;
using testing_io::read_csv_table;
using testing_io::read_jsonl_table;
using testing_io::TempDir;

TEST(IntegerRange, CsvIntegerColumnWithAValueBeyondInt64IsAnError) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "id,n\n1,5\n2,9223372036854775809\n3,-4\n");
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p); });
  EXPECT_THAT(msg, StartsWith(p + ":3:2:"));
  EXPECT_THAT(msg, HasSubstr("9223372036854775809"));
  EXPECT_THAT(msg, HasSubstr("'n'"));
  EXPECT_THAT(msg, HasSubstr("CsvOptions::schema"));
  EXPECT_THAT(msg, HasSubstr("float64"));
  EXPECT_THAT(msg, HasSubstr("utf8"));
}

TEST(IntegerRange, CsvNegativeValueBelowInt64IsAnErrorToo) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n\n-9223372036854775809\n");
  EXPECT_THAT(error_of<ParseError>([&] { read_csv_table(p); }), StartsWith(p + ":2:1:"));
}

TEST(IntegerRange, CsvColumnWithAValueWrittenAsAFloatIsFloat64) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n\n9223372036854775809\n1.5\n");
  const Table t = read_csv_table(p);
  EXPECT_EQ(t.schema(), Schema({{"n", float64()}}));
  EXPECT_EQ(t.column("n").value<double>(0), 9223372036854775809.0);
}

TEST(IntegerRange, CsvColumnWithTextStaysUtf8AndKeepsTheDigits) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n\n99999999999999999999\nabc\n");
  const Table t = read_csv_table(p);
  EXPECT_EQ(t.schema(), Schema({{"n", utf8()}}));
  EXPECT_EQ(t.column("n").value<std::string>(0), "99999999999999999999");
}

TEST(IntegerRange, CsvExplicitSchemaReadsBigIntegersAsAsked) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "n\n9223372036854775809\n");
  CsvOptions options;
  options.schema = Schema({{"n", utf8()}});
  EXPECT_EQ(read_csv_table(p, options).column("n").value<std::string>(0), "9223372036854775809");
  options.schema = Schema({{"n", float64()}});
  EXPECT_EQ(read_csv_table(p, options).column("n").value<double>(0), 9223372036854775809.0);
}

TEST(IntegerRange, CsvInt64ColumnMeetingABigIntegerAfterTheSample) {
  TempDir dir;
  std::string content = "n\n";
  for (int i = 0; i < 20; ++i) content += std::to_string(i) + "\n";
  content += "9223372036854775808\n";  // line 22
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.infer_rows = 5;
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p, options); });
  EXPECT_THAT(msg, StartsWith(p + ":22:1:"));
  EXPECT_THAT(msg, HasSubstr("9223372036854775808"));
  EXPECT_THAT(msg, HasSubstr("int64"));
}

TEST(IntegerRange, JsonlIntegerKeyWithAValueBeyondInt64IsAnError) {
  TempDir dir;
  const std::string p =
      dir.write("t.jsonl", "{\"n\": 1}\n{\"id\": 2, \"n\": 9223372036854775809}\n");
  const std::string msg = error_of<ParseError>([&] { read_jsonl_table(p); });
  EXPECT_THAT(msg, StartsWith(p + ":2:11:"));
  EXPECT_THAT(msg, HasSubstr("9223372036854775809"));
  EXPECT_THAT(msg, HasSubstr("'n'"));
}

TEST(IntegerRange, JsonlKeyWithAFractionalValueIsFloat64) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{\"n\": 9223372036854775809}\n{\"n\": 0.5}\n");
  const Table t = read_jsonl_table(p);
  EXPECT_EQ(t.schema(), Schema({{"n", float64()}}));
  EXPECT_EQ(t.column("n").value<double>(0), 9223372036854775809.0);
}

TEST(IntegerRange, JsonlIntegerBeyondUint64IsAnErrorWithAHint) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{\"n\": 1}\n{\"n\": 123456789012345678901234}\n");
  const std::string msg = error_of<ParseError>([&] { read_jsonl_table(p); });
  EXPECT_THAT(msg, StartsWith(p + ":2:"));
  EXPECT_THAT(msg, HasSubstr("64 bits"));
}

TEST(IntegerRange, JsonlInt64KeyMeetingABigIntegerAfterTheSample) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 10; ++i) content += "{\"n\": " + std::to_string(i) + "}\n";
  content += "{\"n\": 18446744073709551615}\n";  // line 11
  const std::string p = dir.write("t.jsonl", content);
  const JsonlScan scan = plan_jsonl_scan(p, kJsonlSplitBytes, 3);
  const std::string msg = error_of<ParseError>([&] {
    auto reader = open_jsonl_split(scan.splits.at(0), scan.schema, 100);
    while (reader->next()) {
    }
  });
  EXPECT_THAT(msg, StartsWith(p + ":11:2:"));
  EXPECT_THAT(msg, HasSubstr("int64"));
}

}  // namespace
}  // namespace ember
