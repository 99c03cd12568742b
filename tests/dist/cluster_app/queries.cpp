// The scenario every launch runs and compares byte for byte with the local executor: CSV, JSON
// lines, range, Parquet and Arrow queries, writes read back, aggregates, joins, sorts, top-k,
// and UDFs that reject rows.
#include <ember/ember.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "kit.h"
#include "scenarios.h"
#include "udfs.h"

namespace cluster_app {

namespace fs = std::filesystem;

namespace {

/// The queries of `queries` over Parquet and Arrow files (written by spread writes themselves),
/// and an explode: statistics skip row groups, pruning drops a column, and each format's write
/// is read back.
template <typename Show>
void files_queries(const fs::path& dir, Show& show) {
  const auto csv = ember::read_csv((dir / "csv" / "*.csv").string());
  ember::ParquetWriteOptions groups;
  groups.row_group_rows = 100;  // 4 row groups per file
  csv.write_parquet((dir / "parquet").string(), groups);
  csv.write_arrow((dir / "arrow").string());
  const std::string parquet = (dir / "parquet" / "*.parquet").string();
  show("parquet", ember::read_parquet(parquet)
                      .where(ember::col("x") >= 1100)  // file 0's row groups skipped
                      .where(ember::col("x") % 3 != 0)
                      .with_column("y", triple(3)(ember::col("x")))
                      .select({ember::col("x"), ember::col("y")})  // `name` is never read
                      .execute());
  auto half = ember::Udf::cls<HalfLength>("half_length")
                  .returns(ember::float64())
                  .batch_size(64)
                  .concurrency(3);
  show("arrow", ember::read_arrow((dir / "arrow" / "*.arrow").string())
                    .with_column("n", half(ember::col("name")))
                    .execute());
  show("parquet+agg", ember::read_parquet(parquet)
                          .with_column("y", triple(3)(ember::col("x")))
                          .agg({ember::col("y").sum(), ember::col("y").count().alias("count")})
                          .execute());
  ember::ParquetWriteOptions zstd;
  zstd.compression = ember::Compression::Zstd;
  zstd.row_group_rows = 300;
  ember::range(3000, 3)
      .with_column("y", triple(3)(ember::col("id")))
      .write_parquet((dir / "out_parquet").string(), zstd);
  show("parquet written",
       ember::read_parquet((dir / "out_parquet" / "*.parquet").string()).execute());
  ember::range(3000, 3)
      .with_column("y", triple(3)(ember::col("id")))
      .write_arrow((dir / "out_arrow").string());
  show("arrow written", ember::read_arrow((dir / "out_arrow" / "*.arrow").string()).execute());
  // Parquet -> UDF -> group-by -> Parquet, and the chain through a join and a sort: written,
  // then read back in a defined order.
  ember::read_parquet(parquet)
      .with_column("y", triple(3)(ember::col("x")))
      .with_column("bucket", ember::col("x") % 7)
      .group_by({"bucket"})
      .agg({ember::col("y").sum().alias("total"), ember::col("y").count().alias("n")})
      .write_parquet((dir / "grouped").string());
  show("parquet group-by written", ember::read_parquet((dir / "grouped" / "*.parquet").string())
                                       .sort({{ember::col("bucket")}})
                                       .execute());
  const auto labels = ember::range(7, 1)
                          .with_column("bucket", ember::col("id"))
                          .with_column("label", ember::col("id") * 100)
                          .select({ember::col("bucket"), ember::col("label")});
  ember::read_parquet(parquet)
      .where(ember::col("x") % 5 != 0)
      .with_column("y", triple(3)(ember::col("x")))
      .with_column("bucket", ember::col("x") % 7)
      .join(labels, {"bucket"})
      .group_by({"label"})
      .agg({ember::col("y").sum().alias("total"), ember::col("y").max().alias("top")})
      .sort({{ember::col("total"), true}})
      .write_parquet((dir / "chain").string());
  show("chain written", ember::read_parquet((dir / "chain" / "*.parquet").string()).execute());
  // Each rank aggregates its own partitions: every kind of aggregate state (float sums, whose
  // value depends on the merge order, first() and list(), which keep the input order, distinct
  // values) merged on rank 0 as a local run merges them; and distinct(), whose first row of
  // each group is the one earliest in the input.
  const auto x = ember::col("x");
  show("parquet group-by, every aggregate",
       ember::read_parquet(parquet)
           .with_column("y", triple(3)(x))
           .with_column("f", x.cast(ember::float64()) / 7.0)
           .group_by({(x % 13).alias("k")})
           .agg({ember::col("y").sum().alias("ys"), ember::col("f").sum().alias("fs"),
                 ember::col("f").mean().alias("fm"), x.min().alias("lo"),
                 ember::col("name").max().alias("hi"), x.count().alias("n"),
                 ember::col("name").count_distinct().alias("names"),
                 ember::col("name").first().alias("first"), x.list().alias("xs")})
           .execute());
  show("parquet distinct",
       ember::read_parquet(parquet).with_column("k", x % 17).distinct({"k"}).execute());
  // Every join type, null keys on the left (x) and each right key five times (skew), spread
  // (each rank builds the right side itself; a right or full join's unmatched right rows are
  // those no rank matched). Rows come out in the left side's order, matches in the right's.
  const auto dim = ember::range(40, 2)
                       .with_column("x", (ember::col("id") % 8) * 50)
                       .with_column("w", ember::col("id"))
                       .select({x, ember::col("w")});
  const std::pair<ember::JoinType, const char*> types[] = {
      {ember::JoinType::Inner, "join inner"}, {ember::JoinType::Left, "join left"},
      {ember::JoinType::Right, "join right"}, {ember::JoinType::Full, "join full"},
      {ember::JoinType::Semi, "join semi"},   {ember::JoinType::Anti, "join anti"}};
  for (const auto& [type, name] : types)
    show(name, ember::read_parquet(parquet)
                   .with_column("y", triple(3)(x))
                   .join(dim, {"x"}, type)
                   .execute());
  // A full sort on several keys, with nulls (x, first and last) and ties, in both directions.
  show("parquet sort", ember::read_parquet(parquet)
                           .with_column("y", triple(3)(x))
                           .sort({{x % 4, true, true}, {ember::col("y") % 7}, {x, true}})
                           .execute());
  // Ties on the key keep the input order across ranks: each rank's best rows are merged in
  // partition order.
  show("parquet top-k", ember::read_parquet(parquet)
                            .with_column("y", triple(3)(x))
                            .top_k(40, {{x % 10, true}, {ember::col("name")}})
                            .execute());
  show("range sort+limit", ember::range(20000, 8)
                               .with_column("m", ember::col("id") % 100)
                               .sort({{ember::col("m")}})
                               .limit(30)
                               .execute());
  // Under a small memory budget each partition's groups fill their share after a few batches:
  // the ranks send those states, then the rest of the partition's rows, which rank 0 spills
  // and aggregates after them, cut where a local run under the same budget cuts them.
  ember::RunOptions small;
  small.memory_budget_bytes = 256 << 10;
  show("range group-by past the memory budget",
       ember::range(60000, 6)
           .with_column("f", ember::col("id").cast(ember::float64()) / 7.0)
           .group_by({(ember::col("id") % 5000).alias("k")})
           .agg({ember::col("f").sum().alias("fs"), ember::col("id").first().alias("first"),
                 ember::col("id").count().alias("n")})
           .execute(small));
  show("range agg, float sum", ember::range(20000, 8)
                                   .with_column("f", ember::col("id").cast(ember::float64()) / 3.0)
                                   .agg({ember::col("f").sum(), ember::col("f").mean().alias("m"),
                                         ember::col("id").first().alias("first")})
                                   .execute());
  fs::create_directories(dir / "lists");
  for (int f = 0; f < 3; ++f) {
    std::ofstream jl(dir / "lists" / ("part" + std::to_string(f) + ".jsonl"));
    for (int i = 0; i < 50; ++i) {
      jl << "{\"k\": " << f * 100 + i << ", \"tags\": [";
      for (int t = 0; t < i % 4; ++t) jl << (t ? ", " : "") << i * 10 + t;
      jl << "]}\n";
    }
  }
  show("explode", ember::read_jsonl((dir / "lists" / "*.jsonl").string())
                      .explode("tags")
                      .with_column("t3", triple(3)(ember::col("tags")))
                      .execute());
  // A table in memory, in 3 partitions, travels to the other ranks with the pipeline.
  const ember::Table parquet_rows = ember::read_parquet(parquet).execute().table;
  show("in memory", ember::from_table(parquet_rows, 3)
                        .where(ember::col("x") % 5 == 1)
                        .with_column("y", triple(3)(ember::col("x")))
                        .execute());
}

/// A UDF that skips or nulls the rows it fails on: every rank's rejected rows come back, in
/// input order, and count together against max_failed_rows.
template <typename Show>
void rejecting_queries(Show& show) {
  auto picky = [](ember::OnError policy, int64_t max_failed) {
    return ember::Udf::cls<Picky>("picky")
        .returns(ember::int64())
        .batch_size(40)
        .concurrency(3)
        .on_error(policy)
        .max_failed_rows(max_failed);
  };
  for (const ember::OnError policy : {ember::OnError::Skip, ember::OnError::Null}) {
    const char* name = policy == ember::OnError::Skip ? "skip" : "null";
    ember::QueryResult r =
        ember::range(3000, 6).with_column("y", picky(policy, 100)(ember::col("id"))).execute();
    show(name, r);
    // A row rejected on another rank says so ("rank 1: udf 'picky' failed ..."); the rest of
    // each row is the local run's.
    std::cout << "== " << name << " rejected: " << r.rejected.num_rows() << " rows\n";
    for (const ember::Batch& b : r.rejected.batches())
      for (int64_t i = 0; i < b.num_rows(); ++i) {
        std::string error(b.column(1).value<std::string_view>(i));
        if (error.rfind("rank ", 0) == 0) error = error.substr(error.find(": ") + 2);
        std::cout << b.column(0).value<std::string_view>(i) << " | " << error << " | "
                  << b.column(2).value<int64_t>(i) << "\n";
      }
  }
  // 60 rows fail in all, at most 20 on any rank: the limit of 50 holds across the ranks.
  try {
    ember::range(3000, 6)
        .with_column("y", picky(ember::OnError::Skip, 50)(ember::col("id")))
        .execute();
    std::cout << "== over the limit: no error\n";
  } catch (const ember::UdfError& e) {
    const bool names = std::string(e.what()).find("picky") != std::string::npos;
    std::cout << "== over the limit: UdfError" << (names ? " naming the udf" : "") << "\n";
  }
}

}  // namespace

/// The same queries under any launch: CSV, JSONL, range, agg, limit, a filter below a UDF, a
/// write read back, and the same over Parquet and Arrow files. Every table goes to stdout in
/// full.
int queries(const fs::path& dir) {
  write_inputs(dir);
  bool ok = true;
  auto show = [&](const char* name, const ember::QueryResult& r) {
    std::cout << "== " << name << "\n" << r.table.to_string(1 << 20) << "\n";
    ok = check_stats(r.stats, name) && ok;
  };
  // A filter that does not read the UDF's output runs below it (fewer rows to the actors).
  show("csv", ember::read_csv((dir / "csv" / "*.csv").string())
                  .where(ember::col("x") % ember::lit(int64_t{3}) != ember::lit(int64_t{0}))
                  .with_column("y", triple(3)(ember::col("x")))
                  .execute());
  auto half = ember::Udf::cls<HalfLength>("half_length")
                  .returns(ember::float64())
                  .batch_size(64)
                  .concurrency(3);
  show("jsonl", ember::read_jsonl((dir / "jsonl" / "*.jsonl").string())
                    .with_column("n", half(ember::col("text")))
                    .execute());
  show("range+limit",
       ember::range(5000, 4).with_column("y", triple(3)(ember::col("id"))).limit(250).execute());
  show("agg", ember::read_jsonl((dir / "jsonl" / "*.jsonl").string())
                  .with_column("n", half(ember::col("text")))
                  .agg({ember::col("n").sum(), ember::col("n").mean().alias("avg"),
                        ember::col("n").count().alias("count"), ember::col("n").max().alias("top")})
                  .execute());
  ember::range(3000, 3)
      .with_column("y", triple(3)(ember::col("id")))
      .write_csv((dir / "out").string());
  show("written", ember::read_csv((dir / "out" / "*.csv").string()).execute());
  files_queries(dir, show);
  rejecting_queries(show);
  std::fprintf(stderr, "queries: %s\n", ok ? "stats consistent" : "STATS INCONSISTENT");
  return ok ? 0 : 1;
}

}  // namespace cluster_app
