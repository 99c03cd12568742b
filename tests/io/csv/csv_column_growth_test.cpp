// One large batch per split: the typed column builders grow past their initial reservation,
// with nulls first appearing after growth; every value is checked against the generated rows.
#include <gtest/gtest.h>

#include <string>

#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::read_csv_table;
using testing_io::TempDir;

TEST(CsvColumnGrowth, LargeBatchesWithLateNullsMatchTheRows) {
  constexpr int64_t kRows = 150000;  // more than twice the rows reserved up front
  constexpr int64_t kFirstNull = 100000;
  auto is_null = [](int64_t i) { return i >= kFirstNull && i % 7 == 0; };
  auto text_of = [](int64_t i) { return std::string(size_t(1 + i % 5), char('a' + i % 26)); };
  std::string text = "i,x,b,s\n";
  for (int64_t i = 0; i < kRows; ++i) {
    if (is_null(i)) {
      text += ",,,\n";
      continue;
    }
    text += std::to_string(i * 31 - 7) + "," + std::to_string(i) + ".5," +
            (i % 3 == 0 ? "true" : "false") + "," + text_of(i) + "\n";
  }
  TempDir dir;
  const std::string path = dir.write("big.csv", text);
  CsvOptions options;
  options.schema = Schema({{"i", int64()}, {"x", float64()}, {"b", boolean()}, {"s", utf8()}});
  const Table t = read_csv_table(path, options, /*batch_rows=*/kRows);
  ASSERT_EQ(t.num_rows(), kRows);
  const Column ci = t.column("i"), cx = t.column("x"), cb = t.column("b"), cs = t.column("s");
  int64_t nulls = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    if (is_null(i)) {
      ++nulls;
      ASSERT_TRUE(ci.is_null(i) && cx.is_null(i) && cb.is_null(i) && cs.is_null(i)) << i;
      continue;
    }
    ASSERT_EQ(ci.value<int64_t>(i), i * 31 - 7) << i;
    ASSERT_EQ(cx.value<double>(i), double(i) + 0.5) << i;
    ASSERT_EQ(cb.value<bool>(i), i % 3 == 0) << i;
    ASSERT_EQ(cs.value<std::string>(i), text_of(i)) << i;
  }
  EXPECT_EQ(ci.null_count(), nulls);
  EXPECT_EQ(cs.null_count(), nulls);
}

TEST(CsvColumnGrowth, TextWhoseWidthChangesWithinABatch) {
  // Short strings first, so the reader sizes its character buffer for them; then strings a
  // hundred times longer, which must outgrow that estimate; then short ones again.
  constexpr int64_t kRows = 30000;
  auto text_of = [](int64_t i) {
    const size_t width = i >= 10000 && i < 20000 ? 300 + size_t(i % 17) : 1 + size_t(i % 3);
    return std::string(width, char('a' + i % 26));
  };
  std::string text = "i,s\n";
  for (int64_t i = 0; i < kRows; ++i) text += std::to_string(i) + "," + text_of(i) + "\n";
  TempDir dir;
  const std::string path = dir.write("widths.csv", text);
  CsvOptions options;
  options.schema = Schema({{"i", int64()}, {"s", utf8()}});
  const Table t = read_csv_table(path, options, /*batch_rows=*/kRows);
  ASSERT_EQ(t.num_rows(), kRows);
  const Column cs = t.column("s");
  for (int64_t i = 0; i < kRows; ++i) ASSERT_EQ(cs.value<std::string>(i), text_of(i)) << i;
}

}  // namespace
}  // namespace ember
