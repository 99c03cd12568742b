// ember's side of the relational benchmark: a generated fact table (default 10M rows) and a
// dimension table (100k rows) in memory, then group-by, join + group-by, sort and top-100, each
// timed over several runs. Prints one JSON line per query (median seconds, a result check) and
// the process's peak RSS. The formulas match duckdb_relational.mjs, so both see the same data.
//   relational_bench [ROWS] [DIM_ROWS] [THREADS] [REPEAT] [QUERY]   (QUERY: run that one only,
//   for profiling)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

Table fact_table(int64_t rows, int64_t dim_rows) {
  std::vector<int64_t> id(static_cast<size_t>(rows)), k1(id.size()), k2(id.size()), dk(id.size()),
      w(id.size());
  std::vector<double> v(id.size());
  for (int64_t i = 0; i < rows; ++i) {
    const auto s = static_cast<size_t>(i);
    id[s] = i;
    k1[s] = (i * 2654435761LL) % 1000;
    k2[s] = i % 7;
    dk[s] = (i * 40503) % dim_rows;
    v[s] = static_cast<double>((i * 31) % 1000) / 10.0;
    w[s] = i % 100;
  }
  return Table::from_columns({{"id", Column::from(std::move(id))},
                              {"k1", Column::from(std::move(k1))},
                              {"k2", Column::from(std::move(k2))},
                              {"dk", Column::from(std::move(dk))},
                              {"v", Column::from(std::move(v))},
                              {"w", Column::from(std::move(w))}});
}

Table dim_table(int64_t rows) {
  std::vector<int64_t> dk(static_cast<size_t>(rows)), grp(dk.size());
  for (int64_t i = 0; i < rows; ++i)
    dk[static_cast<size_t>(i)] = i, grp[static_cast<size_t>(i)] = i % 50;
  return Table::from_columns(
      {{"dk", Column::from(std::move(dk))}, {"grp", Column::from(std::move(grp))}});
}

double median_seconds(int repeat, const std::function<void()>& run) {
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 10'000'000;
  const int64_t dim_rows = argc > 2 ? std::atoll(argv[2]) : 100'000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int repeat = argc > 4 ? std::atoi(argv[4]) : 3;
  RunOptions o;
  o.threads = threads;
  // One partition per 1M rows, as a scan of a large file would give.
  DataFrame fact = from_table(fact_table(rows, dim_rows),
                              static_cast<int>(std::max<int64_t>(1, rows / 1'000'000)));
  DataFrame dim = from_table(dim_table(dim_rows), 1);

  struct Query {
    const char* name;
    DataFrame df;
  };
  const std::vector<Query> queries = {
      {"group_by_2keys_3aggs", fact.group_by({col("k1"), col("k2")})
                                   .agg({col("v").sum().alias("s"), col("v").count().alias("n"),
                                         col("w").max().alias("m")})},
      {"join_then_group_by",
       fact.join(dim, {"dk"}).group_by({col("grp")}).agg({col("v").sum().alias("s")})},
      {"sort", fact.sort({SortKey{col("v"), true}, SortKey{col("id")}})},
      {"top_100", fact.top_k(100, {SortKey{col("v"), true}, SortKey{col("id")}})},
  };
  const std::string only = argc > 5 ? argv[5] : "";
  for (const Query& q : queries) {
    if (!only.empty() && only != q.name) continue;
    Table result;
    const double secs = median_seconds(repeat, [&] { result = q.df.collect(o); });
    // A check both systems compute: rows, and the first column's value at the first and last row.
    const Column first = result.column(result.schema().field(0).name);
    std::printf(
        "{\"system\": \"ember\", \"query\": \"%s\", \"seconds\": %.4f, \"check\": "
        "\"%lld:%s:%s\"}\n",
        q.name, secs, static_cast<long long>(result.num_rows()), to_string(first.get(0)).c_str(),
        to_string(first.get(result.num_rows() - 1)).c_str());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("{\"system\": \"ember\", \"peak_rss_mb\": %.0f}\n",
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
