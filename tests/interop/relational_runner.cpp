// Writes fixed-seed tables with skewed and null keys as CSV, runs ember's relational operators
// over them with 1, 2 and 4 threads, and writes each result as CSV, for
// check_relational_with_duckdb.mjs to compare with DuckDB's answers on the same files.
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

/// fact.csv: id, k (int64, hot key 0, nulls), s (utf8, nulls), v (float64, nulls), w (int64).
/// dim.csv: k, s, label (utf8), weight (int64). Nulls are empty fields.
void write_inputs(const std::string& dir) {
  std::mt19937_64 rng(20261203);
  std::ofstream fact(dir + "/fact.csv"), dim(dir + "/dim.csv");
  fact << "id,k,s,v,w\n";
  for (int64_t i = 0; i < 20000; ++i) {
    const uint64_t r = rng();
    fact << i << ',';
    if (r % 10) fact << ((r >> 8) % 3 == 0 ? 0 : (r >> 12) % 300);
    fact << ',';
    if (r % 13) fact << 's' << (r >> 24) % 4;
    fact << ',';
    if (r % 7) fact << static_cast<double>((r >> 32) % 100000) / 16.0;
    fact << ',' << (r >> 40) % 50 << '\n';
  }
  dim << "k,s,label,weight\n";
  for (int64_t i = 0; i < 900; ++i) {
    const uint64_t r = rng();
    if (r % 17) dim << (r >> 8) % 400;  // some keys never in fact, some twice
    dim << ',';
    if (r % 19) dim << 's' << (r >> 24) % 4;
    dim << ",L" << i << ',' << (r >> 32) % 1000 << '\n';
  }
}

CsvOptions fact_schema() {
  CsvOptions o;
  o.schema =
      Schema({{"id", int64()}, {"k", int64()}, {"s", utf8()}, {"v", float64()}, {"w", int64()}});
  return o;
}

CsvOptions dim_schema() {
  CsvOptions o;
  o.schema = Schema({{"k", int64()}, {"s", utf8()}, {"label", utf8()}, {"weight", int64()}});
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  write_inputs(dir);
  DataFrame fact = read_csv(dir + "/fact.csv", fact_schema()).repartition(5);
  DataFrame dim = read_csv(dir + "/dim.csv", dim_schema()).repartition(3);
  std::vector<std::pair<std::string, DataFrame>> queries = {
      {"group_by",
       fact.group_by({col("k"), col("s")})
           .agg({col("v").sum().alias("sum_v"), col("v").count().alias("n_v"),
                 col("v").min().alias("min_v"), col("v").max().alias("max_v"),
                 col("v").mean().alias("mean_v"), col("w").count_distinct().alias("nd_w"),
                 col("w").first().alias("first_w"), lit(int64_t{1}).count().alias("rows")})},
      {"sort", fact.sort({SortKey{col("k"), true, true}, SortKey{col("s")}, SortKey{col("id")}})
                   .repartition(1)},
      {"top_k", fact.top_k(100, {SortKey{col("v"), true}, SortKey{col("id")}}).repartition(1)},
      {"distinct", fact.distinct({"k", "s"})},
      {"distinct_all", fact.select({col("s"), col("w")}).distinct()},
  };
  const std::pair<const char*, JoinType> joins[] = {
      {"inner", JoinType::Inner}, {"left", JoinType::Left}, {"right", JoinType::Right},
      {"full", JoinType::Full},   {"semi", JoinType::Semi}, {"anti", JoinType::Anti}};
  for (const auto& [name, type] : joins)
    queries.emplace_back(std::string("join_") + name, fact.join(dim, {"k", "s"}, type));
  for (int threads : {1, 2, 4}) {
    RunOptions o;
    o.threads = threads;
    for (const auto& [name, q] : queries)
      q.write_csv(dir + "/" + name + "_t" + std::to_string(threads), {}, o);
  }
  return 0;
}
