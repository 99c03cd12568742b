// find_csv_record_starts against a byte-at-a-time reference of the record reader's rules, on
// random well-formed CSV text and at every cut point.
#include "io/csv/csv_record_starts.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::TempDir;

/// Offsets at which records start (after the first): just after each '\n' or '\r' outside
/// quotes, where a quote opens a field only at a field start and "" inside quotes is a quote.
std::vector<int64_t> reference_record_starts(const std::string& t, char delimiter) {
  std::vector<int64_t> starts;
  bool quoted = false;
  bool field_start = true;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (quoted) {
      if (c != '"') continue;
      if (i + 1 < t.size() && t[i + 1] == '"') {
        ++i;
      } else {
        quoted = false;
        field_start = false;
      }
      continue;
    }
    if (c == '"' && field_start) {
      quoted = true;
      continue;
    }
    field_start = c == delimiter || c == '\n' || c == '\r';
    if (c == '\n' || c == '\r') starts.push_back(static_cast<int64_t>(i) + 1);
  }
  return starts;
}

/// For every cut, the first start at or after it; stops at the first cut with none.
std::vector<int64_t> expected_for(const std::vector<int64_t>& starts,
                                  const std::vector<int64_t>& cuts) {
  std::vector<int64_t> out;
  for (const int64_t cut : cuts) {
    auto it = std::lower_bound(starts.begin(), starts.end(), cut);
    if (it == starts.end()) break;
    out.push_back(*it);
  }
  return out;
}

std::string random_field(std::mt19937_64& rng, char delimiter) {
  static const std::vector<std::string> kText = {"a", "bc", " ", "7", "\xc3\xa9", "x\"y", "z\"\""};
  const std::vector<std::string> kQuoted = {
      "\"\"", std::string(1, delimiter), "\n", "\r", "\r\n", "q", "\"\"\"\"", "w"};
  std::string v;
  const size_t pieces = rng() % (rng() % 8 == 0 ? 40 : 4);
  if (rng() % 3 == 0) {
    v = "\"";
    for (size_t i = 0; i < pieces; ++i) v += kQuoted[rng() % kQuoted.size()];
    return v + "\"";
  }
  for (size_t i = 0; i < pieces; ++i) v += kText[rng() % kText.size()];
  return v;
}

std::string random_csv(std::mt19937_64& rng, char delimiter, size_t min_bytes) {
  static const char* const kEnds[] = {"\n", "\r\n", "\r"};
  std::string t;
  while (t.size() < min_bytes) {
    const size_t width = 1 + rng() % 4;
    for (size_t c = 0; c < width; ++c) {
      if (c > 0) t += delimiter;
      t += random_field(rng, delimiter);
    }
    t += kEnds[rng() % 3];
  }
  return t;
}

std::vector<int64_t> every_cut(const std::string& t) {
  std::vector<int64_t> cuts;
  for (int64_t c = 1; c < static_cast<int64_t>(t.size()); ++c) cuts.push_back(c);
  return cuts;
}

TEST(CsvRecordStarts, MatchTheReferenceAtEveryCutOfRandomFiles) {
  TempDir dir;
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 150; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const char delimiter = round % 3 == 0 ? ';' : ',';
    const std::string t = random_csv(rng, delimiter, 200 + rng() % 3000);
    const std::string p = dir.write("t.csv", t);
    const std::vector<int64_t> cuts = every_cut(t);
    ASSERT_EQ(find_csv_record_starts(p, delimiter, cuts),
              expected_for(reference_record_starts(t, delimiter), cuts));
  }
}

TEST(CsvRecordStarts, FollowQuotingAcrossReadChunks) {
  TempDir dir;
  std::mt19937_64 rng(99);
  const std::string t = random_csv(rng, ',', size_t{3} << 20);  // three 1 MiB reads and more
  const std::string p = dir.write("t.csv", t);
  std::vector<int64_t> cuts;
  for (int64_t c = 1; c < static_cast<int64_t>(t.size()); c += 1 + rng() % 5000) cuts.push_back(c);
  ASSERT_EQ(find_csv_record_starts(p, ',', cuts),
            expected_for(reference_record_starts(t, ','), cuts));
}

TEST(CsvRecordStarts, BareQuotesAtEveryBlockOffset) {
  TempDir dir;
  // `a"b` keeps its quote as data; a parity count would take it to open a quoted field.
  for (size_t k = 1; k < 130; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    std::string t = std::string(k, 'a') + "\"b,\"c\nd\",e\n";
    for (int r = 0; r < 5; ++r) t += "f\"" + std::string(size_t(r) * 9, 'g') + ",h\n";
    const std::string p = dir.write("t.csv", t);
    const std::vector<int64_t> cuts = every_cut(t);
    ASSERT_EQ(find_csv_record_starts(p, ',', cuts),
              expected_for(reference_record_starts(t, ','), cuts));
  }
}

TEST(CsvRecordStarts, QuoteRightAfterAByteOrderMarkOpensAField) {
  TempDir dir;
  const std::string body = "\"a\nb\",c\r1,\"2\n3\"\n4,5\n";
  const std::string p = dir.write("t.csv", "\xEF\xBB\xBF" + body);
  std::vector<int64_t> expected;
  for (const int64_t s : reference_record_starts(body, ',')) expected.push_back(s + 3);
  std::vector<int64_t> cuts;
  for (int64_t c = 1; c < static_cast<int64_t>(body.size()) + 3; ++c) cuts.push_back(c);
  EXPECT_EQ(find_csv_record_starts(p, ',', cuts), expected_for(expected, cuts));
}

TEST(CsvRecordStarts, StopAtAQuoteThatNeverCloses) {
  TempDir dir;
  const std::string head = std::string(300, 'x') + "\n";
  const std::string t = head + "\"open\n" + std::string(500, 'y') + "\nz\n";
  const std::string p = dir.write("t.csv", t);
  const std::vector<int64_t> starts = find_csv_record_starts(p, ',', {100, 200, 400, 600});
  EXPECT_EQ(starts, (std::vector<int64_t>{301, 301}));
}

TEST(CsvRecordStarts, StopAtACharacterAfterAClosingQuote) {
  TempDir dir;
  const std::string head = std::string(300, 'x') + "\n";
  const std::string t = head + "\"bad\"x,1\n" + std::string(500, 'y') + "\nz\n";
  const std::string p = dir.write("t.csv", t);
  const std::vector<int64_t> starts = find_csv_record_starts(p, ',', {100, 200, 500, 700});
  EXPECT_EQ(starts, (std::vector<int64_t>{301, 301}));
}

TEST(CsvRecordStarts, NoRecordAfterTheLastCut) {
  TempDir dir;
  const std::string p = dir.write("t.csv", "a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
  EXPECT_EQ(find_csv_record_starts(p, ',', {1, 2, 10}), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(find_csv_record_starts(p, ',', {}).empty());
}

}  // namespace
}  // namespace ember
