// The CSV fast path: plain records indexed 64 bytes at a time, checked at block edges and
// against a simple reference parser on random input (quotes, CRLF, blank lines, UTF-8).
#include "io/csv/csv_plain_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

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

/// `text` laid out as ChunkedFile holds a window: a '\n' sentinel, then padding.
struct Window {
  explicit Window(std::string text) : size(text.size()), bytes(std::move(text)) {
    bytes += '\n';
    bytes.append(64, '\0');
  }
  const char* begin() const { return bytes.data(); }
  const char* end() const { return bytes.data() + size; }
  size_t size;
  std::string bytes;
};

struct Indexed {
  std::vector<std::vector<std::string>> rows;
  size_t consumed = 0;  ///< bytes before the first record left alone
  bool non_ascii = false;
};

Indexed index(const std::string& text, size_t width, size_t max_rows = 1 << 20,
              int64_t last_start = INT64_MAX, char delimiter = ',') {
  const Window w(text);
  CsvPlainRun run;
  const char* stop =
      index_plain_records(w.begin(), w.end(), last_start, delimiter, width, max_rows, run);
  Indexed out;
  out.consumed = static_cast<size_t>(stop - w.begin());
  out.non_ascii = run.non_ascii;
  for (size_t r = 0; r < run.rows; ++r) {
    std::vector<std::string> row;
    for (size_t c = 0; c < width; ++c) row.emplace_back(run.field(r, c));
    out.rows.push_back(row);
  }
  return out;
}

using Rows = std::vector<std::vector<std::string>>;

TEST(CsvPlainRun, IndexesPlainRecordsAndStripsCarriageReturns) {
  const Indexed got = index("1,ab,\r\n,x y,3\n", 3);
  EXPECT_EQ(got.rows, (Rows{{"1", "ab", ""}, {"", "x y", "3"}}));
  EXPECT_EQ(got.consumed, 14u);
  EXPECT_FALSE(got.non_ascii);
}

TEST(CsvPlainRun, StopsBeforeTheRecordHoldingAQuote) {
  const Indexed got = index("1,2\n3,a\"b\n5,6\n", 2);
  EXPECT_EQ(got.rows, (Rows{{"1", "2"}}));
  EXPECT_EQ(got.consumed, 4u);
}

TEST(CsvPlainRun, StopsBeforeRaggedAndBlankRecords) {
  EXPECT_EQ(index("1,2\n3,4,5\n6,7\n", 2).consumed, 4u);
  EXPECT_EQ(index("1,2\n3\n6,7\n", 2).consumed, 4u);
  EXPECT_EQ(index("1,2\n\n6,7\n", 2).consumed, 4u);
  EXPECT_EQ(index("1\n\n2\n", 1).consumed, 2u);    // a blank line is skipped, not a null row
  EXPECT_EQ(index("1\n\r\n2\n", 1).consumed, 2u);  // so is a blank CRLF line
}

TEST(CsvPlainRun, LeavesARecordTheWindowCuts) {
  EXPECT_EQ(index("1,2\n3,4", 2).rows, (Rows{{"1", "2"}}));
  EXPECT_EQ(index("1,2\n3,4", 2).consumed, 4u);
  EXPECT_EQ(index("", 2).consumed, 0u);
}

TEST(CsvPlainRun, HonoursTheRowLimitAndTheSplitEnd) {
  EXPECT_EQ(index("1\n2\n3\n4\n", 1, 2).rows, (Rows{{"1"}, {"2"}}));
  // Records starting at offsets 0, 2, 4: a limit of 2 admits the first two.
  EXPECT_EQ(index("1\n2\n3\n4\n", 1, 100, 2).rows, (Rows{{"1"}, {"2"}}));
  EXPECT_EQ(index("1\n2\n3\n4\n", 1, 100, 0).rows, (Rows{{"1"}}));
  EXPECT_EQ(index("1\n2\n3\n4\n", 1, 100, -1).rows, Rows{});
}

TEST(CsvPlainRun, OtherDelimiterAndNonAscii) {
  const Indexed got = index("a;b,c\n\xc3\xa9;d\n", 2, 100, INT64_MAX, ';');
  EXPECT_EQ(got.rows, (Rows{{"a", "b,c"}, {"\xc3\xa9", "d"}}));
  EXPECT_TRUE(got.non_ascii);
}

/// Splits plain text (no quotes, no blank lines) the obvious way, for comparison: lines end at
/// \n, \r\n or a lone \r.
Rows split_plain(const std::string& text, size_t width) {
  Rows rows;
  size_t i = 0;
  while (i < text.size()) {
    const size_t nl = text.find_first_of("\r\n", i);
    if (nl == std::string::npos) break;
    const std::string line = text.substr(i, nl - i);
    const size_t next = text.compare(nl, 2, "\r\n") == 0 ? nl + 2 : nl + 1;
    std::vector<std::string> row;
    size_t f = 0;
    for (size_t d; (d = line.find(',', f)) != std::string::npos; f = d + 1) {
      row.push_back(line.substr(f, d - f));
    }
    row.push_back(line.substr(f));
    EXPECT_EQ(row.size(), width);
    rows.push_back(row);
    i = next;
  }
  return rows;
}

TEST(CsvPlainRun, SeparatorsAtEveryOffsetAroundBlockEdges) {
  // A first field of length k puts its delimiter at byte k and shifts every later byte, so
  // delimiters, '\r', '\n' and record starts each land on bytes 63, 64, 127 and 128 for some k.
  for (size_t k = 0; k < 140; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    std::string text = std::string(k, 'a') + ",b\r\n" + std::string(k % 70, 'c') + ",\r\n";
    for (int r = 0; r < 6; ++r) text += std::to_string(r) + "," + std::string(r * 13, 'x') + "\n";
    const Indexed got = index(text, 2);
    EXPECT_EQ(got.rows, split_plain(text, 2));
    EXPECT_EQ(got.consumed, text.size());
  }
}

TEST(CsvPlainRun, LoneCarriageReturnsAtEveryOffsetAroundBlockEdges) {
  // As above with old Mac line ends, and a "\r\n" whose halves fall in different blocks.
  for (size_t k = 0; k < 140; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    std::string text = std::string(k, 'a') + ",b\r" + std::string(k % 70, 'c') + ",\r\n";
    for (int r = 0; r < 6; ++r) text += std::to_string(r) + "," + std::string(r * 13, 'x') + "\r";
    const Indexed got = index(text, 2);
    // The last '\r' may yet be the start of a "\r\n": its record waits for the byte after it.
    Rows expected = split_plain(text, 2);
    expected.pop_back();
    EXPECT_EQ(got.rows, expected);
    EXPECT_EQ(got.consumed, text.size() - std::string("5,\r").size() - 5 * 13);
  }
}

TEST(CsvPlainRun, StopsBeforeABlankLineAfterALoneCarriageReturn) {
  EXPECT_EQ(index("1\r\r\n2\n", 1).consumed, 2u);  // "1", then a blank "\r\n" line
  EXPECT_EQ(index("1\r\r2\n", 1).consumed, 2u);    // "1", then a blank "\r" line
}

TEST(CsvPlainRun, QuoteAtEveryOffsetAroundBlockEdges) {
  for (size_t k = 0; k < 140; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    std::string before;
    while (before.size() + 4 <= k) before += "1,2\n";
    const std::string text = before + std::string(k - before.size(), 'z') + "\",q\n3,4\n";
    // Every record wholly before the quote's record is indexed; nothing after it is.
    const size_t records_before = before.size() / 4;
    const size_t expect_consumed = records_before * 4;
    const Indexed got = index(text, 2);
    EXPECT_EQ(got.consumed, expect_consumed);
    EXPECT_EQ(got.rows.size(), records_before);
  }
}

TEST(CsvPlainRun, LongFieldsSpanningManyBlocks) {
  const std::string a(1000, 'a');
  const std::string b(64, 'b');
  const std::string text = a + "," + b + "\r\n" + b + "," + a + "\n";
  EXPECT_EQ(index(text, 2).rows, (Rows{{a, b}, {b, a}}));
}

TEST(CsvPlainRun, RandomPlainTextMatchesASimpleSplit) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const size_t width = 1 + rng() % 5;
    std::string text;
    const int rows = 1 + static_cast<int>(rng() % 40);
    for (int r = 0; r < rows; ++r) {
      for (size_t c = 0; c < width; ++c) {
        if (c > 0) text += ',';
        const size_t len = (c == 0 && width == 1 ? 1 : 0) + rng() % (rng() % 4 == 0 ? 150 : 9);
        for (size_t i = 0; i < len; ++i) text += static_cast<char>('a' + rng() % 26);
      }
      const char* const kEnds[] = {"\n", "\r\n", "\r"};
      text += kEnds[rng() % 3];
    }
    if (text.back() == '\r') text += '\n';  // a final '\r' waits for the byte after it
    SCOPED_TRACE("round " + std::to_string(round));
    const Indexed got = index(text, width);
    EXPECT_EQ(got.rows, split_plain(text, width));
    EXPECT_EQ(got.consumed, text.size());
  }
}

// ---- whole reads: the fast path interleaved with the general parser

using Cells = std::vector<std::vector<std::optional<std::string>>>;

/// RFC-4180 as read_csv documents it: quotes open a field only at its start, "" inside quotes
/// is a quote, a record ends at \n, \r\n or a lone \r, a blank line is skipped, an unquoted empty
/// field is null (input is well formed).
Cells reference_parse(const std::string& t) {
  Cells out;
  size_t i = 0;
  while (i < t.size()) {
    std::vector<std::optional<std::string>> rec;
    bool blank = false;
    for (;;) {
      std::string v;
      bool quoted = false;
      if (t[i] == '"') {
        quoted = true;
        for (++i; !(t[i] == '"' && (i + 1 == t.size() || t[i + 1] != '"')); ++i) {
          v += t[i];
          if (t[i] == '"') ++i;
        }
        ++i;
      } else {
        while (i < t.size() && t[i] != ',' && t[i] != '\n' && t[i] != '\r') v += t[i++];
      }
      blank = rec.empty() && v.empty() && !quoted;
      rec.push_back(v.empty() && !quoted ? std::nullopt : std::optional<std::string>(v));
      if (i < t.size() && t[i] == ',') {
        ++i;
        continue;
      }
      if (i < t.size() && t[i] == '\r' && i + 1 < t.size() && t[i + 1] == '\n') ++i;
      if (i < t.size()) ++i;
      break;
    }
    if (rec.size() == 1 && blank) continue;
    out.push_back(rec);
  }
  return out;
}

std::string random_field(std::mt19937_64& rng, bool quoted_newlines) {
  static const std::vector<std::string> kPieces = {
      "a", "b", "7", " ", "\xc3\xa9", "\xe6\x97\xa5", "xyz", "\r", "q\"q"};
  std::string v;
  const size_t len = rng() % (rng() % 5 == 0 ? 100 : 6);
  for (size_t i = 0; i < len; ++i) v += kPieces[rng() % kPieces.size()];
  // A '\r' outside quotes ends a record (old Mac files), so only a quoted field may hold one.
  if (rng() % 6 != 0 && v.find('\r') == std::string::npos) return v;
  // Quoted: may hold delimiters, doubled quotes and (when allowed) line breaks.
  std::string q = "\"";
  for (char ch : v + (rng() % 2 ? "," : "") + (quoted_newlines && rng() % 2 ? "\r\n" : "")) {
    q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  }
  return q + "\"";
}

std::string random_csv(std::mt19937_64& rng, size_t width, int rows, bool quoted_newlines) {
  std::string text;
  for (size_t c = 0; c < width; ++c) text += (c ? ",c" : "c") + std::to_string(c);
  text += "\n";
  for (int r = 0; r < rows; ++r) {
    if (rng() % 40 == 0) text += rng() % 2 ? "\n" : "\r\n";  // blank line
    std::string line;
    for (size_t c = 0; c < width; ++c) {
      if (c > 0) line += ',';
      line += random_field(rng, quoted_newlines);
    }
    if (width == 1 && line.empty()) line = "e";  // a lone empty field would read as blank
    text += line + (rng() % 3 == 0 ? "\r\n" : "\n");
  }
  return text;
}

TEST(CsvPlainRun, RandomFilesMatchTheReferenceParser) {
  TempDir dir;
  std::mt19937_64 rng(11);
  for (int round = 0; round < 60; ++round) {
    const size_t width = 1 + rng() % 4;
    const bool quoted_newlines = round % 2 == 0;
    const std::string text =
        random_csv(rng, width, 1 + static_cast<int>(rng() % 400), quoted_newlines);
    const std::string p = dir.write("r.csv", text);
    CsvOptions options;
    std::vector<Field> fields;
    for (size_t c = 0; c < width; ++c) fields.push_back({"c" + std::to_string(c), utf8()});
    options.schema = Schema(fields);
    options.split_bytes = 64 + static_cast<int64_t>(rng() % 3000);
    const int64_t batch_rows = 1 + static_cast<int64_t>(rng() % 300);
    SCOPED_TRACE("round " + std::to_string(round));
    const Table t = read_csv_table(p, options, batch_rows);
    Cells expected = reference_parse(text);
    expected.erase(expected.begin());  // the header
    ASSERT_EQ(t.num_rows(), static_cast<int64_t>(expected.size()));
    for (size_t c = 0; c < width; ++c) {
      const Column col = t.column("c" + std::to_string(c));
      for (size_t r = 0; r < expected.size(); ++r) {
        const std::optional<std::string> got =
            col.is_null(static_cast<int64_t>(r))
                ? std::nullopt
                : std::optional<std::string>(col.value<std::string>(static_cast<int64_t>(r)));
        ASSERT_EQ(got, expected[r][c]) << "row " << r << " column " << c;
      }
    }
  }
}

TEST(CsvPlainRun, TypedColumnsOverManyRunsAndBatches) {
  TempDir dir;
  std::string text = "i,f,b,s\n";
  const int rows = 20000;
  for (int r = 0; r < rows; ++r) {
    text += r % 97 == 0 ? "" : std::to_string(r * 7 - 5000);
    text += "," + std::to_string(r) + ".25," + (r % 2 ? "true" : "FALSE") + ",w" +
            std::to_string(r % 13) + (r % 5 == 0 ? "\r\n" : "\n");
  }
  const std::string p = dir.write("t.csv", text);
  const Table t = read_csv_table(p, {}, 5000);
  ASSERT_EQ(t.num_rows(), rows);
  EXPECT_EQ(t.schema(),
            Schema({{"i", int64()}, {"f", float64()}, {"b", boolean()}, {"s", utf8()}}));
  for (int r = 0; r < rows; ++r) {
    ASSERT_EQ(t.column("i").is_null(r), r % 97 == 0);
    if (r % 97 != 0) {
      ASSERT_EQ(t.column("i").value<int64_t>(r), r * 7 - 5000);
    }
    ASSERT_EQ(t.column("f").value<double>(r), r + 0.25);
    ASSERT_EQ(t.column("b").value<bool>(r), r % 2 == 1);
    ASSERT_EQ(t.column("s").value<std::string>(r), "w" + std::to_string(r % 13));
  }
}

std::string many_rows_then(const std::string& last, int rows = 3000) {
  std::string text = "n,s\n";
  for (int r = 0; r < rows; ++r) text += std::to_string(r) + ",word" + std::to_string(r) + "\n";
  return text + last;
}

TEST(CsvPlainRun, ErrorsDeepInAPlainRunNameTheTrueLine) {
  TempDir dir;
  const std::string bad_int = dir.write("a.csv", many_rows_then("12x,w\n"));
  EXPECT_THAT(error_of<ParseError>([&] { read_csv_table(bad_int); }),
              StartsWith(bad_int + ":3002:1:"));
  const std::string bad_utf8 = dir.write("b.csv", many_rows_then("5,\xc3\xa9\xff\n"));
  const std::string msg = error_of<ParseError>([&] { read_csv_table(bad_utf8); });
  EXPECT_THAT(msg, StartsWith(bad_utf8 + ":3002:2:"));
  EXPECT_THAT(msg, HasSubstr("UTF-8"));
  const std::string ragged = dir.write("c.csv", many_rows_then("5,w,extra\n"));
  EXPECT_THAT(error_of<ParseError>([&] { read_csv_table(ragged); }),
              StartsWith(ragged + ":3002:3:"));
}

}  // namespace
}  // namespace ember
