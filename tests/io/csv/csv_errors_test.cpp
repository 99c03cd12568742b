// read_csv bad input: every error names the file, line and field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/chunked_file.h"
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

TEST(CsvErrors, RowWithTooManyFields) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n1,2\n3,4,5\n");
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":3:3:"));
  EXPECT_THAT(msg, HasSubstr("expected 2 fields"));
  EXPECT_THAT(msg, HasSubstr("got 3"));
}

TEST(CsvErrors, ControlCharactersInTheFileNameAreEscaped) {
  TempDir dir;
  const std::string p = dir.write("bad\nname\x1b[31m.csv", "a,b\n1,2\n3,4,5\n");
  const std::string msg = csv_error(p);
  const std::string shown = p.substr(0, p.size() - 17) + "bad\\x0aname\\x1b[31m.csv";
  EXPECT_THAT(msg, StartsWith(shown + ":3:3:"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
}

TEST(CsvErrors, RowWithTooFewFieldsAfterTheSample) {
  TempDir dir;
  std::string content = "a,b\n";
  for (int i = 0; i < 20; ++i) content += "1,2\n";
  content += "7\n";  // line 22
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.infer_rows = 5;
  const std::string msg = csv_error(p, options);
  EXPECT_THAT(msg, StartsWith(p + ":22:1:"));
  EXPECT_THAT(msg, HasSubstr("got 1"));
}

TEST(CsvErrors, UnterminatedQuoteAtEndOfFile) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n1,2\n3,\"open\nmore\n");
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":3:2:"));
  EXPECT_THAT(msg, HasSubstr("unterminated"));
}

TEST(CsvErrors, StrayCharacterAfterClosingQuote) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n\"x\"y,2\n");
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":2:1:"));
  EXPECT_THAT(msg, HasSubstr("after a closing quote"));
}

TEST(CsvErrors, ValueBeyondTheSampleThatDoesNotFitTheType) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "id,price\n1,10\n2,11\n3,n/a\n");
  CsvOptions options;
  options.infer_rows = 2;
  const std::string msg = csv_error(p, options);
  EXPECT_THAT(msg, StartsWith(p + ":4:2:"));
  EXPECT_THAT(msg, HasSubstr("'n/a'"));
  EXPECT_THAT(msg, HasSubstr("'price'"));
  EXPECT_THAT(msg, HasSubstr("int64"));
  EXPECT_THAT(msg, HasSubstr("CsvOptions::schema"));
}

TEST(CsvErrors, ValueThatDoesNotFitTheDeclaredType) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "flag\ntrue\nmaybe\n");
  CsvOptions options;
  options.schema = Schema({{"flag", boolean()}});
  const std::string msg = csv_error(p, options);
  EXPECT_THAT(msg, StartsWith(p + ":3:1:"));
  EXPECT_THAT(msg, HasSubstr("bool"));
}

TEST(CsvErrors, LineCountsNewlinesInsideQuotedFields) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,b\n\"x\ny\",1\n\"z\",oops\n");
  CsvOptions options;
  options.schema = Schema({{"a", utf8()}, {"b", int64()}});
  EXPECT_THAT(csv_error(p, options), StartsWith(p + ":4:2:"));
}

TEST(CsvErrors, InvalidUtf8InAUtf8Field) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "s\nok\nbad\xff\xfe\n");
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":3:1:"));
  EXPECT_THAT(msg, HasSubstr("UTF-8"));
}

TEST(CsvErrors, InvalidUtf8LongFieldAfterAsciiPrefix) {
  TempDir dir;
  // The bad byte sits after the 8-byte ASCII fast path has consumed whole words.
  const std::string p = dir.write("t.csv", "n,s\n1,abcdefghijklmnop\xc3\x28xyz\n");
  EXPECT_THAT(csv_error(p), StartsWith(p + ":2:2:"));
}

TEST(CsvErrors, ValidMultibyteUtf8IsAccepted) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "s\nnaïve café — 日本語 😀\n");
  EXPECT_EQ(read_csv_table(p).column("s").value<std::string>(0), "naïve café — 日本語 😀");
}

TEST(CsvErrors, InvalidUtf8InHeader) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a,\xc0x\n1,2\n");
  EXPECT_THAT(csv_error(p), StartsWith(p + ":1:2:"));
}

TEST(CsvErrors, RecordLongerThanTheLimitIsAnErrorAtItsLine) {
  TempDir dir;
  // A quote that never closes makes the rest of the file one record; memory stays bounded.
  std::string content = "a,b\n1,x\n2,\"";
  content.append(ChunkedFile::kMaxRecordBytes + 1000, 'q');
  const std::string p = dir.write("t.csv", content);
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":3:1:"));
  EXPECT_THAT(msg, HasSubstr("64 MiB"));
}

TEST(CsvErrors, EmptyFile) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "");
  const std::string msg = csv_error(p);
  EXPECT_THAT(msg, StartsWith(p + ":1:1:"));
  EXPECT_THAT(msg, HasSubstr("empty file"));
}

TEST(CsvErrors, MissingFileIsAnIoError) {
  TempDir dir;
  const std::string p = dir.file("absent.csv");
  const std::string msg = error_of<IoError>([&] { read_csv_table(p); });
  EXPECT_THAT(msg, HasSubstr(p));
}

TEST(CsvErrors, ControlCharactersInAMissingFileNameAreEscaped) {
  TempDir dir;
  const std::string p = dir.file("gone\r\x07.csv");
  const std::string msg = error_of<IoError>([&] { read_csv_table(p); });
  EXPECT_THAT(msg, HasSubstr("gone\\x0d\\x07.csv"));
  EXPECT_EQ(msg.find('\r'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x07'), std::string::npos) << msg;
}

TEST(CsvErrors, BadOptionsAreInvalidArguments) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a\n1\n");
  CsvOptions options;
  options.delimiter = '"';
  EXPECT_THROW(read_csv_table(p, options), InvalidArgument);
}

}  // namespace
}  // namespace ember
