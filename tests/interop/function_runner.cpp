// Writes a fixed-seed table of awkward values (nulls, empty and multi-byte text, NaN and
// infinities, extreme integers, instants near the epoch and centuries away, lists with null
// items, embeddings) as Parquet, then every function of the expression library over it, for
// check_functions_with_duckdb.mjs to compare with DuckDB's equivalents value by value.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int64_t kRows = 4000;

std::string random_text(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {"a", "B", "c",  "é", "Ä", "日", "本", "ß", "ö",
                                                   "Σ", " ", "\t", ",", "1", "2",  "3",  "x", "Z"};
  std::string s;
  for (uint64_t k = rng() % 13; k > 0; --k) s += kPieces[rng() % kPieces.size()];
  return s;
}

std::optional<int64_t> random_int(std::mt19937_64& rng) {
  static const int64_t kEdges[] = {std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(),
                                   0,
                                   1,
                                   -1,
                                   1000000000000};
  const uint64_t r = rng() % 20;
  if (r == 0) return std::nullopt;
  if (r == 1) return kEdges[rng() % 6];
  return int64_t(rng() % 2001) - 1000;
}

std::optional<double> random_float(std::mt19937_64& rng) {
  const double inf = std::numeric_limits<double>::infinity();
  static const double kEdges[] = {std::nan(""), inf, -inf, -0.0, 0.0, 0.5, -2.5, 1e300};
  const uint64_t r = rng() % 20;
  if (r == 0) return std::nullopt;
  if (r == 1) return kEdges[rng() % 8];
  return std::normal_distribution<double>(0, 100)(rng);
}

// Instants within days of the epoch, or anywhere in 1700..2200.
std::optional<Timestamp> random_instant(std::mt19937_64& rng) {
  const uint64_t r = rng() % 10;
  if (r == 0) return std::nullopt;
  const int64_t day = 86400LL * 1000000;
  if (r < 4) return Timestamp{int64_t(rng() % uint64_t(20 * day)) - 10 * day};
  const int64_t span = 500LL * 365 * day;
  return Timestamp{int64_t(rng() % uint64_t(span)) - 270LL * 365 * day};
}

// Dates within weeks of the epoch, or anywhere in 1700..2200.
std::optional<Date> random_date(std::mt19937_64& rng) {
  const uint64_t r = rng() % 10;
  if (r == 0) return std::nullopt;
  if (r < 4) return Date{int32_t(rng() % 60) - 30};
  return Date{int32_t(rng() % (500 * 365)) - 270 * 365};
}

Table inputs() {
  std::mt19937_64 rng(20261205);
  std::vector<int64_t> id;
  std::vector<std::optional<int64_t>> i;
  std::vector<std::optional<double>> x;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<Timestamp>> ts;
  std::vector<std::optional<Date>> d;
  std::vector<std::optional<std::vector<std::optional<int64_t>>>> l;
  std::vector<std::vector<double>> a;
  std::vector<std::optional<std::vector<double>>> b;
  std::normal_distribution<double> g;
  for (int64_t r = 0; r < kRows; ++r) {
    id.push_back(r);
    i.push_back(random_int(rng));
    x.push_back(random_float(rng));
    s.push_back(rng() % 10 == 0 ? std::nullopt : std::optional(random_text(rng)));
    ts.push_back(random_instant(rng));
    d.push_back(random_date(rng));
    std::vector<std::optional<int64_t>> items;
    for (uint64_t k = rng() % 7; k > 0; --k) {
      items.push_back(rng() % 8 == 0 ? std::nullopt : std::optional(int64_t(rng() % 11) - 5));
    }
    l.push_back(rng() % 10 == 0 ? std::nullopt : std::optional(items));
    a.push_back({g(rng), g(rng), g(rng), g(rng)});
    b.push_back(rng() % 10 == 0
                    ? std::nullopt
                    : std::optional(std::vector<double>{g(rng), g(rng), g(rng), g(rng)}));
  }
  return Table::from_columns({{"id", Column::from(id)},
                              {"i", Column::from(i)},
                              {"x", Column::from(x)},
                              {"s", Column::from(s)},
                              {"ts", Column::from(ts)},
                              {"d", Column::from(d)},
                              {"l", Column::from(l)},
                              {"a", Column::from(a)},
                              {"b", Column::from(b)}});
}

// Every function, named as the check script names its DuckDB equivalent.
std::vector<Expr> functions() {
  const Expr i = col("i"), x = col("x"), s = col("s"), ts = col("ts"), l = col("l");
  const Expr d = col("d");
  return {
      s.str_length().alias("str_length"),
      s.str_lower().alias("str_lower"),
      s.str_upper().alias("str_upper"),
      s.str_contains("a").alias("str_contains"),
      s.str_starts_with("B").alias("str_starts_with"),
      s.str_ends_with("é").alias("str_ends_with"),
      s.str_replace("a", "XY").alias("str_replace"),
      s.str_split(",").alias("str_split"),
      s.str_slice(1, 3).alias("str_slice"),
      s.str_strip().alias("str_strip"),
      s.str_pad(6, "*").alias("str_pad"),
      s.str_pad(6, "é", true).alias("str_pad_end"),
      concat({s, lit("-"), s.str_upper()}).alias("concat"),
      s.str_match("[0-9]+").alias("str_match"),
      s.str_extract("([a-zé]+)([0-9])", 2).alias("str_extract"),
      s.str_replace_regex("([0-9])", "<\\1>").alias("str_replace_regex"),
      when(i > 0, s, lit("neg")).alias("when"),
      coalesce({x, i}).alias("coalesce"),
      s.fill_null(lit("?")).alias("fill_null"),
      i.is_in({Value{int64_t{1}}, Value{int64_t{2}}, Value{int64_t{-1000}}, Value{3.0}})
          .alias("is_in"),
      i.between(lit(int64_t{-100}), lit(int64_t{100})).alias("between"),
      i.nullif(lit(int64_t{0})).alias("nullif"),
      x.abs().alias("abs_f"),
      i.abs().alias("abs_i"),
      x.round(2).alias("round_f"),
      i.round(-2).alias("round_i"),
      x.floor().alias("floor"),
      x.ceil().alias("ceil"),
      x.sqrt().alias("sqrt"),
      x.exp().alias("exp"),
      x.log().alias("log"),
      x.log10().alias("log10"),
      x.pow(lit(3.0)).alias("pow"),
      x.clip(lit(-10.5), lit(10.5)).alias("clip"),
      x.sign().alias("sign_f"),
      i.sign().alias("sign_i"),
      l.list_contains(Value{int64_t{2}}).alias("list_contains"),
      l.list_sum().alias("list_sum"),
      l.list_mean().alias("list_mean"),
      l.list_min().alias("list_min"),
      l.list_max().alias("list_max"),
      l.list_slice(1, 2).alias("list_slice"),
      l.list_sort().alias("list_sort"),
      l.list_distinct().alias("list_distinct"),
      s.str_split(",").list_join("+").alias("list_join"),
      cosine_similarity(col("a"), col("b")).alias("cosine_similarity"),
      dot(col("a"), col("b")).alias("dot"),
      l2_distance(col("a"), col("b")).alias("l2_distance"),
      ts.dt_year().alias("dt_year"),
      ts.dt_month().alias("dt_month"),
      ts.dt_day().alias("dt_day"),
      ts.dt_hour().alias("dt_hour"),
      ts.dt_minute().alias("dt_minute"),
      ts.dt_second().alias("dt_second"),
      ts.dt_day_of_week().alias("dt_day_of_week"),
      ts.dt_truncate("month").alias("dt_truncate_month"),
      ts.dt_truncate("week").alias("dt_truncate_week"),
      ts.dt_truncate("hour").alias("dt_truncate_hour"),
      (ts >= lit_timestamp("2000-01-01")).alias("lit_timestamp"),
      (ts + lit(int64_t{3 * 86400000000LL + 5})).alias("plus_duration"),
      (ts - lit_timestamp("2000-01-01")).alias("minus_timestamp"),
      ts.cast(utf8()).str_replace(" ", "T").cast(timestamp_us()).alias("iso_parse"),
      ts.cast(utf8()).alias("iso_format"),
      d.dt_year().alias("date_year"),
      d.dt_month().alias("date_month"),
      d.dt_day().alias("date_day"),
      d.dt_day_of_week().alias("date_day_of_week"),
      d.dt_truncate("month").alias("date_truncate_month"),
      d.dt_truncate("week").alias("date_truncate_week"),
      (d >= lit_date("2000-01-01")).alias("lit_date"),
      (d + lit(int64_t{40})).alias("date_plus_days"),
      (d - lit_date("2000-01-01")).alias("date_minus_date"),
      d.cast(utf8()).alias("date_format"),
      d.cast(utf8()).cast(date32()).alias("date_parse"),
      ts.cast(date32()).alias("timestamp_to_date"),
      d.cast(timestamp_us()).alias("date_to_timestamp"),
  };
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const DataFrame in = from_table(inputs(), 3);
  in.write_parquet(dir + "/input");
  std::vector<Expr> out = {col("id")};
  for (Expr& f : functions()) out.push_back(f);
  in.select(out).write_parquet(dir + "/output");
  return 0;
}
