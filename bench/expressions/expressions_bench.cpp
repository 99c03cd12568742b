// ember's side of the expression benchmark: generated tables in memory (default 10M rows, and
// 100k 384-float embeddings), then five queries built from the expression library, each timed
// over several runs. Prints one JSON line per query (median seconds, a result check) and the
// process's peak RSS. The formulas match duckdb_expressions.mjs, so both see the same data.
//   expressions_bench [ROWS] [EMBEDDINGS] [THREADS] [REPEAT] [QUERY]   (QUERY: run only that one)
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

constexpr int kDim = 384;

// Row i: a text of three words (the last "Refund" on every 7th row), a score, an instant.
Table rows_table(int64_t rows) {
  std::vector<std::string> text(static_cast<size_t>(rows));
  std::vector<double> v(text.size());
  std::vector<Timestamp> ts(text.size());
  for (int64_t i = 0; i < rows; ++i) {
    const auto s = static_cast<size_t>(i);
    text[s] =
        "doc " + std::to_string((i * 2654435761LL) % 100000) + (i % 7 == 0 ? " Refund" : " ok");
    v[s] = static_cast<double>((i * 31) % 1000) / 10.0;
    ts[s] = Timestamp{(i % 1000000) * 3600LL * 1000000 * 7 / 10};
  }
  return Table::from_columns({{"s", Column::from(std::move(text))},
                              {"v", Column::from(std::move(v))},
                              {"ts", Column::from(std::move(ts))}});
}

// Embedding i, item j: ((i * 31 + j * 17) % 97) / 97.
Table embeddings_table(int64_t rows) {
  std::vector<int64_t> id(static_cast<size_t>(rows));
  std::vector<std::vector<float>> emb(id.size(), std::vector<float>(kDim));
  for (int64_t i = 0; i < rows; ++i) {
    id[static_cast<size_t>(i)] = i;
    for (int j = 0; j < kDim; ++j)
      emb[size_t(i)][size_t(j)] = float((i * 31 + j * 17) % 97) / 97.0f;
  }
  return Table::from_columns(
      {{"id", Column::from(std::move(id))}, {"emb", Column::from(std::move(emb))}});
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
  const int64_t embeddings = argc > 2 ? std::atoll(argv[2]) : 100'000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int repeat = argc > 4 ? std::atoi(argv[4]) : 3;
  const std::string only = argc > 5 ? argv[5] : "";
  RunOptions o;
  o.threads = threads;
  const int parts = static_cast<int>(std::max<int64_t>(1, rows / 1'000'000));
  const DataFrame t = from_table(rows_table(rows), parts);
  // Stored as fixed_size_list(float32, 384), as DuckDB's FLOAT[384]: cast once, not per query.
  const DataFrame e =
      from_table(from_table(embeddings_table(embeddings), 2)
                     .with_column("emb", col("emb").cast(fixed_size_list(float32(), kDim)))
                     .collect(o),
                 2);
  List query{{}, float32()};
  for (int j = 0; j < kDim; ++j) {
    query.items.emplace_back(std::in_place_type<float>, float((j * 13) % 89) / 89.0f);
  }
  const Expr count = lit(int64_t{1}).count().alias("n");
  struct Query {
    const char* name;
    DataFrame df;
  };
  const std::vector<Query> queries = {
      {"lower_contains_filter", t.where(col("s").str_lower().str_contains("refund")).agg({count})},
      {"split_explode", t.select({col("s").str_split(" ").alias("w")}).explode("w").agg({count})},
      {"when_chain", t.with_column("b", when(col("v") < 10.0, lit("a"),
                                             when(col("v") < 50.0, lit("b"),
                                                  when(col("v") < 90.0, lit("c"), lit("d")))))
                         .group_by({col("b")})
                         .agg({count})},
      {"dt_year_group_by", t.group_by({col("ts").dt_year().alias("y")}).agg({count})},
      {"cosine_top_10", e.with_column("sim", cosine_similarity(col("emb"), lit(query)))
                            .top_k(10, {SortKey{col("sim"), true}, SortKey{col("id")}})
                            .select({col("id")})},
  };
  for (const Query& q : queries) {
    if (!only.empty() && only != q.name) continue;
    Table result;
    const double secs = median_seconds(repeat, [&] { result = q.df.collect(o); });
    const Column first = result.column(result.schema().field(0).name);
    std::printf(
        "{\"system\": \"ember\", \"query\": \"%s\", \"seconds\": %.4f, \"check\": \"%lld:%s\"}\n",
        q.name, secs, static_cast<long long>(result.num_rows()), to_string(first.get(0)).c_str());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("{\"system\": \"ember\", \"peak_rss_mb\": %.0f}\n",
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
