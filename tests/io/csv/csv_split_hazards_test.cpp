// Byte-range splits of generated CSV files full of quoting hazards: quoted line breaks placed
// after the inference sample, doubled quotes, bare quotes inside unquoted fields, delimiters in
// quotes, and \n, \r\n and lone \r line ends. Whatever the cut points, a split read must give
// exactly the rows of an unsplit read, and both the rows the generator wrote.
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

using testing_io::read_csv_table;
using testing_io::TempDir;

constexpr int64_t kSampleRows = 50;

struct GeneratedCsv {
  std::string text;
  std::vector<std::string> a, c;
  std::vector<std::optional<double>> b;
};

/// How a generated file ends its lines.
enum class LineEnds { Lf, CrLf, Cr, Mixed };

class CsvHazardGenerator {
 public:
  CsvHazardGenerator(uint64_t seed, char delimiter) : rng_(seed), delimiter_(delimiter) {}

  GeneratedCsv generate(int64_t rows, LineEnds ends, bool breaks_only_after_sample) {
    GeneratedCsv out;
    const char d = delimiter_;
    out.text = chance(4) ? "\"id\"" : "id";
    out.text += std::string(1, d) + "a" + d + (chance(4) ? "\"b\"" : "b") + d + "c" + eol(ends);
    for (int64_t i = 0; i < rows; ++i) {
      const bool breaks = !breaks_only_after_sample || i >= kSampleRows;
      out.a.push_back(text(breaks));
      out.c.push_back(text(breaks));
      out.b.push_back(chance(5) ? std::nullopt : std::optional<double>(double(i) + 0.25));
      std::string id = std::to_string(i);
      if (chance(6)) id = "\"" + id + "\"";
      out.text += id + d + field(out.a.back()) + d;
      if (out.b.back()) out.text += std::to_string(i) + ".25";
      out.text += d + field(out.c.back());
      if (i + 1 < rows || !chance(3)) out.text += eol(ends);  // sometimes no final line end
      if (i + 1 < rows && chance(20)) out.text += eol(ends);  // a blank line
    }
    return out;
  }

 private:
  bool chance(int one_in) { return rng_() % one_in == 0; }

  std::string eol(LineEnds ends) {
    static const char* const kEnds[] = {"\n", "\r\n", "\r"};
    return kEnds[ends == LineEnds::Mixed ? rng_() % 3 : static_cast<size_t>(ends)];
  }

  /// A non-empty value made of pieces that trip naive splitters.
  std::string text(bool allow_breaks) {
    static const std::vector<std::string> kPlain = {"w", "xy", " z ", "7", "\xc3\xa9", "q\"t"};
    const std::vector<std::string> hazards = {
        "\"", "\"\"", std::string(1, delimiter_), "\n", "\r\n", "\r", "\n\n"};
    std::string v;
    const int pieces = 1 + static_cast<int>(rng_() % 4);
    for (int p = 0; p < pieces; ++p) {
      if (chance(3)) {
        const std::string& h = hazards[rng_() % hazards.size()];
        if (allow_breaks || h.find_first_of("\r\n") == std::string::npos) v += h;
      } else {
        v += kPlain[rng_() % kPlain.size()];
      }
    }
    return v.empty() ? "e" : v;
  }

  /// `v` as a field: quoted when it must be (or at random), else bare, quotes and all.
  std::string field(const std::string& v) {
    const bool must =
        v.find_first_of(std::string("\r\n") + delimiter_) != std::string::npos || v.front() == '"';
    if (!must && !chance(4)) return v;
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }

  std::mt19937_64 rng_;
  char delimiter_;
};

void expect_generated_rows(const Table& t, const GeneratedCsv& g) {
  ASSERT_EQ(t.num_rows(), static_cast<int64_t>(g.a.size()));
  ASSERT_EQ(t.schema(), Schema({{"id", int64()}, {"a", utf8()}, {"b", float64()}, {"c", utf8()}}));
  const Column id = t.column("id"), a = t.column("a"), b = t.column("b"), c = t.column("c");
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    ASSERT_EQ(id.value<int64_t>(i), i);
    ASSERT_EQ(a.value<std::string>(i), g.a[size_t(i)]) << "row " << i;
    ASSERT_EQ(c.value<std::string>(i), g.c[size_t(i)]) << "row " << i;
    ASSERT_EQ(b.is_null(i), !g.b[size_t(i)]) << "row " << i;
    if (g.b[size_t(i)]) {
      ASSERT_EQ(b.value<double>(i), *g.b[size_t(i)]);
    }
  }
}

void expect_same_rows(const Table& split, const Table& whole) {
  ASSERT_EQ(split.schema(), whole.schema());
  ASSERT_EQ(split.num_rows(), whole.num_rows());
  for (const Field& f : whole.schema().fields()) {
    const Column x = split.column(f.name), y = whole.column(f.name);
    for (int64_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(to_string(x.get(i)), to_string(y.get(i))) << f.name << " row " << i;
    }
  }
}

TEST(CsvSplitHazards, SplitReadsMatchTheUnsplitReadForManySeeds) {
  TempDir dir;
  const char delimiters[] = {',', ';', '\t', '|'};
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 pick(seed * 7919);
    const auto ends = static_cast<LineEnds>(pick() % 4);
    const char delimiter = delimiters[pick() % 4];
    const bool late_breaks = pick() % 4 != 0;
    const int64_t rows = 100 + static_cast<int64_t>(pick() % 300);
    const GeneratedCsv g = CsvHazardGenerator(seed, delimiter).generate(rows, ends, late_breaks);
    const std::string p = dir.write("t.csv", g.text);
    CsvOptions options;
    options.delimiter = delimiter;
    options.infer_rows = kSampleRows;
    options.split_bytes = 0;
    const Table whole = read_csv_table(p, options, 64);
    ASSERT_NO_FATAL_FAILURE(expect_generated_rows(whole, g));
    for (int r = 0; r < 3; ++r) {
      options.split_bytes = 64 + static_cast<int64_t>(pick() % 4033);
      SCOPED_TRACE("split_bytes " + std::to_string(options.split_bytes));
      ASSERT_NO_FATAL_FAILURE(expect_same_rows(read_csv_table(p, options, 64), whole));
    }
  }
}

TEST(CsvSplitHazards, EveryCutPointOfAQuoteHeavyFile) {
  TempDir dir;
  for (const LineEnds ends : {LineEnds::Lf, LineEnds::CrLf, LineEnds::Cr, LineEnds::Mixed}) {
    const GeneratedCsv g = CsvHazardGenerator(42, ',').generate(12, ends, false);
    const std::string p = dir.write("t.csv", g.text);
    CsvOptions options;
    for (int64_t split = 1; split <= 120; ++split) {
      SCOPED_TRACE("split_bytes " + std::to_string(split));
      options.split_bytes = split;
      ASSERT_NO_FATAL_FAILURE(expect_generated_rows(read_csv_table(p, options, 5), g));
    }
  }
}

}  // namespace
}  // namespace ember
