// Writing a random table and reading it back gives the same table, types included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "io/output/partition_writer.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::TempDir;

const std::vector<std::string>& tricky_strings() {
  static const std::vector<std::string> s = {
      "plain",        "",           " lead",    "trail ",      "a,b",       "say \"hi\"",
      "\"",           "two\nlines", "cr\r\nlf", "back\\slash", "tab\there", "ctl\x01\x1f",
      "naïve 日本 😀", "null",       ",",        "\r",          "x"};
  return s;
}

/// A table of `rows` rows over several batches; each column has nulls; `finite` keeps floats
/// finite (JSON cannot hold NaN or infinities).
Table random_table(std::mt19937_64& rng, int64_t rows, bool finite) {
  auto coin = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<double>> floats;
  std::vector<std::optional<bool>> bools;
  std::vector<std::optional<std::string>> strings;
  const double specials[] = {0.0,
                             -0.0,
                             3.0,
                             1e300,
                             -1e-300,
                             0.1,
                             123456789.0,
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t extreme =
        i % 2 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    ints.push_back(coin(10) ? std::nullopt
                            : std::optional<int64_t>(coin(5) ? extreme : int64_t(rng()) >> 20));
    double f =
        std::ldexp(double(int64_t(rng() >> 11)) - double(int64_t{1} << 52), int(rng() % 80) - 60);
    if (coin(10)) f = specials[rng() % (finite ? 7 : 9)];
    floats.push_back(coin(10) ? std::nullopt : std::optional<double>(f));
    bools.push_back(coin(10) ? std::nullopt : std::optional<bool>(coin(50)));
    const auto& t = tricky_strings();
    strings.push_back(coin(10) ? std::nullopt
                               : std::optional<std::string>(t[rng() % t.size()] +
                                                            (coin(50) ? t[rng() % t.size()] : "")));
  }
  const Table whole = Table::from_columns({{"i", Column::from(ints)},
                                           {"f", Column::from(floats)},
                                           {"b", Column::from(bools)},
                                           {"s", Column::from(strings)}});
  std::vector<Batch> batches;
  const Batch& all = whole.batches().at(0);
  for (int64_t at = 0; at < rows; at += 97)
    batches.push_back(all.slice(at, std::min<int64_t>(97, rows - at)));
  return Table(whole.schema(), std::move(batches));
}

bool same_value(const Value& a, const Value& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b) &&
      std::isnan(std::get<double>(a)) && std::isnan(std::get<double>(b))) {
    return true;
  }
  return a == b;
}

void expect_same_table(const Table& expected, const Table& actual) {
  ASSERT_EQ(actual.schema(), expected.schema());
  ASSERT_EQ(actual.num_rows(), expected.num_rows());
  for (const Field& f : expected.schema().fields()) {
    const Column e = expected.column(f.name);
    const Column a = actual.column(f.name);
    for (int64_t i = 0; i < e.size(); ++i) {
      ASSERT_TRUE(same_value(e.get(i), a.get(i)))
          << f.name << " row " << i << ": wrote " << to_string(e.get(i)) << ", read "
          << to_string(a.get(i));
    }
  }
}

void write_one_part(const std::string& dir, const Table& t, FileFormat format) {
  auto w = open_partition_writer(dir, 0, t.schema(), format);
  for (const Batch& b : t.batches()) w->write(b);
  w->commit();
}

TEST(RoundTrip, Csv) {
  std::mt19937_64 rng(1234);
  for (int round = 0; round < 4; ++round) {
    TempDir dir;
    const Table t = random_table(rng, 1500, /*finite=*/false);
    write_one_part(dir.path(), t, FileFormat::Csv);
    expect_same_table(t, testing_io::read_csv_table(dir.file("part-*.csv"), {}, 500));
  }
}

TEST(RoundTrip, Jsonl) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 4; ++round) {
    TempDir dir;
    const Table t = random_table(rng, 1500, /*finite=*/true);
    write_one_part(dir.path(), t, FileFormat::Jsonl);
    expect_same_table(t, testing_io::read_jsonl_table(dir.file("part-*.jsonl"), 4096, 500));
  }
}

}  // namespace
}  // namespace ember
