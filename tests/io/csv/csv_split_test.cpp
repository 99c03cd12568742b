// Byte-range splits: every row is read exactly once, in order, whatever the cut points.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::StartsWith;
using testing_io::error_of;
using testing_io::read_csv_table;
using testing_io::TempDir;

/// Row i's text field: quoted with an embedded comma (and a doubled quote) on every third row.
std::string text_for(int64_t i) {
  // GCC 12 at -O3 reports a false -Wrestrict inside std::string's inlined insert for
  // "literal" + std::string (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  if (i % 3 == 0) return "t" + std::to_string(i) + ", \"q\"";
  return "t" + std::to_string(i);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

std::string make_csv(int64_t rows, const std::string& eol) {
  std::string out = "id,text,score" + eol;
  for (int64_t i = 0; i < rows; ++i) {
    std::string text = text_for(i);
    if (i % 3 == 0) {
      std::string quoted = "\"";
      for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      text = quoted + "\"";
    }
    out += std::to_string(i) + "," + text + "," + std::to_string(i) + ".5" + eol;
  }
  return out;
}

void expect_rows_once_in_order(const Table& t, int64_t rows) {
  ASSERT_EQ(t.num_rows(), rows);
  const Column id = t.column("id");
  const Column text = t.column("text");
  const Column score = t.column("score");
  for (int64_t i = 0; i < rows; ++i) {
    ASSERT_EQ(id.value<int64_t>(i), i);
    ASSERT_EQ(text.value<std::string>(i), text_for(i));
    ASSERT_EQ(score.value<double>(i), static_cast<double>(i) + 0.5);
  }
}

TEST(CsvSplits, MultiMegabyteFileInManySplits) {
  TempDir dir;
  const int64_t rows = 150000;  // about 4 MB
  const std::string p = dir.write("big.csv", make_csv(rows, "\n"));
  CsvOptions options;
  options.split_bytes = 100 << 10;
  const CsvScan scan = plan_csv_scan(p, options);
  EXPECT_GT(scan.splits.size(), 30u);
  expect_rows_once_in_order(read_csv_table(p, options, 4096), rows);
}

TEST(CsvSplits, EveryCutPointOfASmallFile) {
  TempDir dir;
  for (const std::string eol : {"\n", "\r\n"}) {
    const int64_t rows = 40;
    const std::string p = dir.write("small.csv", make_csv(rows, eol));
    for (int64_t split = 1; split <= 90; ++split) {
      SCOPED_TRACE("split_bytes=" + std::to_string(split));
      CsvOptions options;
      options.split_bytes = split;
      expect_rows_once_in_order(read_csv_table(p, options, 7), rows);
    }
  }
}

TEST(CsvSplits, FileWithQuotedNewlinesIsSplitAtRecordStarts) {
  TempDir dir;
  std::string content = "a,b\n1,\"two\nlines\"\n";
  for (int i = 0; i < 2000; ++i) content += std::to_string(i) + ",\"x\ny\"\n";
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.split_bytes = 1000;
  EXPECT_GT(plan_csv_scan(p, options).splits.size(), 10u);
  const Table t = read_csv_table(p, options);
  ASSERT_EQ(t.num_rows(), 2001);
  for (int64_t i = 1; i < 2001; ++i) {
    ASSERT_EQ(t.column("a").value<int64_t>(i), i - 1);
    ASSERT_EQ(t.column("b").value<std::string>(i), "x\ny");
  }
}

TEST(CsvSplits, QuotedNewlinesAfterTheSampleAreNotCut) {
  // The inference sample (1000 rows) shows no quoted newline, so nothing hints that a cut
  // point may fall inside a quoted field: the splits must find record starts all the same.
  TempDir dir;
  std::string content = "id,note\n";
  for (int i = 0; i < 1400; ++i) {
    content += std::to_string(i) + (i < 1000 ? ",plain\n" : ",\"first\nsecond\nthird\"\n");
  }
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.split_bytes = 4096;
  ASSERT_GT(plan_csv_scan(p, options).splits.size(), 3u);
  const Table t = read_csv_table(p, options);
  ASSERT_EQ(t.num_rows(), 1400);
  for (int64_t i = 0; i < 1400; ++i) {
    ASSERT_EQ(t.column("id").value<int64_t>(i), i);
    ASSERT_EQ(t.column("note").value<std::string>(i), i < 1000 ? "plain" : "first\nsecond\nthird");
  }
}

TEST(CsvSplits, UnterminatedQuoteKeepsTheRestOfTheFileInOneSplit) {
  TempDir dir;
  std::string content = "n,s\n";
  for (int i = 0; i < 500; ++i) content += std::to_string(i) + ",x\n";
  content += "500,\"open\n";  // line 502: never closed
  for (int i = 0; i < 500; ++i) content += std::to_string(i) + ",y\n";
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.split_bytes = 256;
  options.infer_rows = 100;
  const std::vector<FileSplit> splits = plan_csv_scan(p, options).splits;
  ASSERT_GT(splits.size(), 3u);
  EXPECT_LT(splits.back().begin, static_cast<int64_t>(content.find("500,\"open")));
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p, options); });
  EXPECT_THAT(msg, StartsWith(p + ":502:2:"));
  EXPECT_THAT(msg, ::testing::HasSubstr("unterminated"));
}

TEST(CsvSplits, ErrorInALaterSplitGivesTheTrueLine) {
  TempDir dir;
  std::string content = "n\n";
  for (int i = 0; i < 5000; ++i) content += std::to_string(i) + "\n";
  content += "oops\n";  // line 5002
  const std::string p = dir.write("t.csv", content);
  CsvOptions options;
  options.split_bytes = 1024;
  ASSERT_GT(plan_csv_scan(p, options).splits.size(), 10u);
  const std::string msg = error_of<ParseError>([&] { read_csv_table(p, options); });
  EXPECT_THAT(msg, StartsWith(p + ":5002:1:"));
}

}  // namespace
}  // namespace ember
