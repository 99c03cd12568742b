// A program for the cluster tests: the same binary runs without mpirun (the local executor) and
// under `mpirun -np N` (rank 0 drives, the other ranks host actors). Each scenario prints its
// results on stdout, so the tests compare a cluster run with a local one byte for byte, and
// checks what only a cluster run shows (actors and inits per rank) itself, on stderr.
//   cluster_app SCENARIO WORKDIR
#include <ember/ember.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "rank.h"
#include "udf_settings.h"

namespace fs = std::filesystem;

namespace {

using cluster_app::my_rank;

/// x * 3 for int64; counts its constructions in `marker_dir` (one file each) when given, and
/// fails as `fail` says: "init@R" (constructor on rank R), "call@R" (calls on rank R),
/// "kill@R" (the rank kills itself on its first call).
struct Triple {
  Triple(const ember::InitArgs& args, const ember::ActorContext& ctx) {
    fail = args.has("fail") ? args.get<std::string>("fail") : "";
    if (fail == "init@" + std::to_string(my_rank()))
      throw std::runtime_error("cannot load the model here");
    if (args.has("crash_marker")) crash_marker = args.get<std::string>("crash_marker");
    if (args.has("marker_dir")) {
      std::ofstream(
          fs::path(args.get<std::string>("marker_dir")) /
          ("init-rank" + std::to_string(my_rank()) + "-actor" + std::to_string(ctx.actor_id)));
    }
  }
  ember::Column operator()(const ember::Batch& in) const {
    if (fail == "call@" + std::to_string(my_rank())) throw std::runtime_error("bad row batch");
    if (fail == "kill@" + std::to_string(my_rank())) std::raise(SIGKILL);
    if (fail == "crash_once@" + std::to_string(my_rank()) && !fs::exists(crash_marker)) {
      std::ofstream{crash_marker};
      std::abort();  // the worker process dies; its rank starts another and retries
    }
    const ember::Column& x = in.column(0);
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (x.is_null(i))
        out.push_back(std::nullopt);
      else
        out.push_back(x.value<int64_t>(i) * 3);
    }
    return ember::Column::from(std::move(out));
  }
  std::string fail;
  fs::path crash_marker;
};
EMBER_REGISTER_UDF(Triple);

/// Returns its argument, but fails any batch holding a value v with v % 50 == 7 (so under
/// OnError::Null or Skip, exactly those rows are rejected).
struct Picky {
  explicit Picky(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) const {
    const ember::Column& x = in.column(0);
    for (int64_t i = 0; i < in.num_rows(); ++i)
      if (!x.is_null(i) && x.value<int64_t>(i) % 50 == 7)
        throw std::runtime_error("no " + std::to_string(x.value<int64_t>(i)));
    return x;
  }
};
EMBER_REGISTER_UDF(Picky);

/// Length of a string, as float64 plus a half (so sums are float sums).
struct HalfLength {
  explicit HalfLength(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) const {
    const ember::Column& s = in.column(0);
    std::vector<std::optional<double>> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (s.is_null(i))
        out.push_back(std::nullopt);
      else
        out.push_back(static_cast<double>(s.value<std::string_view>(i).size()) + 0.5);
    }
    return ember::Column::from(std::move(out));
  }
};
EMBER_REGISTER_UDF(HalfLength);

/// Reports the GPUs its actor holds (as a count per row).
struct GpuCount {
  GpuCount(const ember::InitArgs&, const ember::ActorContext& ctx)
      : gpus(static_cast<int64_t>(ctx.gpu_ids.size())) {}
  ember::Column operator()(const ember::Batch& in) const {
    return ember::Column::from(std::vector<int64_t>(static_cast<size_t>(in.num_rows()), gpus));
  }
  int64_t gpus;
};
EMBER_REGISTER_UDF(GpuCount);

/// Returns its argument. A batch of a partition another rank reads (partition p of a range
/// holds the ids from p * `rows` on; of 6 partitions on 3 ranks, each rank is handed the 2 with
/// p % 3 equal to its rank to start with, and none are left to ask for, so rank 0 reads
/// p % 3 == 0) leaves a file "done-ID" in
/// `marker_dir`. A batch of rank 0's waits until `others` such files exist (at most 60 s), then
/// sleeps `ms`: so however slowly the ranks start, rank 0 still runs for a while after every
/// other partition is done.
struct Napper {
  explicit Napper(const ember::InitArgs& args)
      : ms(args.get<int64_t>("ms")),
        rows(args.get<int64_t>("rows")),
        others(args.get<int64_t>("others")),
        marker_dir(args.get<std::string>("marker_dir")) {}
  ember::Column operator()(const ember::Batch& in) const {
    if (in.num_rows() == 0) return in.column(0);
    const int64_t first = in.column(0).value<int64_t>(0);
    if (first / rows % 3 != 0) {
      std::ofstream(fs::path(marker_dir) / ("done-" + std::to_string(first)));
      return in.column(0);
    }
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (done_elsewhere() < others && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return in.column(0);
  }
  int64_t done_elsewhere() const {
    int64_t n = 0;
    for (const auto& e : fs::directory_iterator(marker_dir))
      n += e.path().filename().string().rfind("done-", 0) == 0 ? 1 : 0;
    return n;
  }
  int64_t ms, rows, others;
  std::string marker_dir;
};
EMBER_REGISTER_UDF(Napper);

/// Returns its argument after `ms` per batch; on its first call on a rank it leaves a file
/// "started-rankR" in `marker_dir`, so a test knows the job is under way there.
struct Dawdler {
  explicit Dawdler(const ember::InitArgs& args)
      : ms(args.get<int64_t>("ms")), marker_dir(args.get<std::string>("marker_dir")) {}
  ember::Column operator()(const ember::Batch& in) const {
    if (!started) {
      started = true;
      std::ofstream(fs::path(marker_dir) / ("started-rank" + std::to_string(my_rank())));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return in.column(0);
  }
  int64_t ms;
  std::string marker_dir;
  mutable bool started = false;  // one call at a time per actor
};
EMBER_REGISTER_UDF(Dawdler);

/// Returns its argument after `ms` per batch; on a rank whose environment sets
/// EMBER_TEST_SLOW_RANK_FACTOR (the test gives it to one rank only), after that many times as
/// long: a rank with a slower machine or a busier GPU. A batch holding the id `fail_id` fails,
/// on whichever rank runs it.
struct Straggler {
  explicit Straggler(const ember::InitArgs& args)
      : ms(args.get<int64_t>("ms") * slow_factor()), fail_id(args.get<int64_t>("fail_id")) {}
  static int64_t slow_factor() {
    const char* factor = std::getenv("EMBER_TEST_SLOW_RANK_FACTOR");
    return factor && *factor ? std::max<int64_t>(1, std::atoll(factor)) : 1;
  }
  ember::Column operator()(const ember::Batch& in) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const ember::Column& x = in.column(0);
    for (int64_t i = 0; i < in.num_rows(); ++i)
      if (x.value<int64_t>(i) == fail_id) throw std::runtime_error("bad id");
    return x;
  }
  int64_t ms;
  int64_t fail_id;
};
EMBER_REGISTER_UDF(Straggler);

ember::Udf triple(int actors, ember::InitArgs args = {}) {
  return ember::Udf::cls<Triple>("triple")
      .returns(ember::int64())
      .init_args(std::move(args))
      .batch_size(100)
      .concurrency(actors);
}

/// actors_per_rank and inits_per_rank of every UDF, on stderr; false when inits differ from
/// actors on any rank or the actors do not add up to the pool.
bool check_stats(const ember::QueryStats& stats, const char* query) {
  bool ok = true;
  for (const ember::UdfStats& u : stats.udfs) {
    std::fprintf(stderr, "%s: udf '%s' actors per rank", query, u.name.c_str());
    int actors = 0;
    for (size_t r = 0; r < u.actors_per_rank.size(); ++r) {
      std::fprintf(stderr, " %d", u.actors_per_rank[r]);
      actors += u.actors_per_rank[r];
      ok = ok && u.inits_per_rank.at(r) == u.actors_per_rank[r];
    }
    std::fprintf(stderr, ", inits per rank");
    for (int64_t i : u.inits_per_rank) std::fprintf(stderr, " %lld", static_cast<long long>(i));
    std::fprintf(stderr, "\n");
    ok = ok && actors == u.actors && u.inits == u.actors;
  }
  return ok;
}

void write_inputs(const fs::path& dir) {
  fs::create_directories(dir / "csv");
  fs::create_directories(dir / "jsonl");
  for (int f = 0; f < 3; ++f) {
    std::ofstream csv(dir / "csv" / ("part" + std::to_string(f) + ".csv"));
    csv << "x,name\n";
    for (int i = 0; i < 400; ++i) {
      const int x = f * 1000 + i;
      if (i % 37 == 5)
        csv << ",row" << x << "\n";  // a null x
      else
        csv << x << ",row" << x << "\n";
    }
    std::ofstream jl(dir / "jsonl" / ("part" + std::to_string(f) + ".jsonl"));
    for (int i = 0; i < 300; ++i) {
      if (i % 41 == 3)
        jl << "{\"text\": null}\n";
      else
        jl << "{\"text\": \"" << std::string(static_cast<size_t>((i * 7 + f) % 23), 'a') << "\"}\n";
    }
  }
}

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
  // Every join type, null keys on the left (x) and each right key five times (skew): inner,
  // left, semi and anti joins spread (each rank builds the right side itself), right and full
  // joins stay on rank 0. Rows come out in the left side's order, matches in the right's.
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

/// Partitions and rows per rank of a query, on stdout; false unless every rank ran some.
bool show_ranks(const char* query, const ember::QueryStats& stats) {
  bool every = !stats.ranks.empty();
  std::cout << query << ": partitions per rank";
  for (const ember::RankStats& r : stats.ranks) {
    std::cout << " " << r.partitions;
    every = every && r.partitions > 0 && r.rows > 0;
  }
  std::cout << ", rows per rank";
  for (const ember::RankStats& r : stats.ranks) std::cout << " " << r.rows;
  std::cout << (every ? ", every rank ran partitions" : ", NOT every rank ran partitions") << "\n";
  return every;
}

/// Source partitions spread over the ranks: each rank scans its share and runs the operators
/// around the UDF; the results equal a local run's (checked here row by row), and explain()
/// says which plans spread and which stay on rank 0.
int spread(const fs::path& dir) {
  write_inputs(dir);
  bool ok = true;
  auto csv = ember::read_csv((dir / "csv" / "*.csv").string())
                 .where(ember::col("x") % ember::lit(int64_t{2}) == ember::lit(int64_t{0}))
                 .with_column("y", triple(3)(ember::col("x")))
                 .with_column("z", ember::col("y") + ember::lit(int64_t{1}));
  ember::QueryResult r = csv.execute();
  ok = show_ranks("csv", r.stats) && ok;
  bool right = r.table.num_rows() > 0;
  for (int64_t i = 0; right && i < r.table.num_rows(); ++i) {
    const ember::Column& x = r.table.column("x");
    right = !x.is_null(i) && x.value<int64_t>(i) % 2 == 0 &&
            r.table.column("z").value<int64_t>(i) == 3 * x.value<int64_t>(i) + 1 &&
            (i == 0 || x.value<int64_t>(i - 1) < x.value<int64_t>(i));  // input order
  }
  std::cout << "csv rows " << r.table.num_rows() << (right ? " in input order" : " WRONG") << "\n";
  ok = ok && right;
  ember::QueryResult ranged =
      ember::range(6000, 6).with_column("y", triple(3)(ember::col("id"))).execute();
  ok = show_ranks("range", ranged.stats) && ok;
  int64_t sum = 0;
  for (int64_t i = 0; i < ranged.table.num_rows(); ++i)
    sum += ranged.table.column("y").value<int64_t>(i) - 3 * i;  // 0 when in order and right
  std::cout << "range rows " << ranged.table.num_rows() << ", misplaced " << sum << "\n";
  ok = ok && sum == 0 && ranged.table.num_rows() == 6000;
  // A table in memory travels with the pipeline: other ranks run some of its partitions.
  ember::QueryResult tabled =
      ember::from_table(ranged.table, 6).with_column("z", triple(3)(ember::col("y"))).execute();
  int ranks_ran = 0;
  for (const ember::RankStats& rank : tabled.stats.ranks) ranks_ran += rank.partitions > 0;
  int64_t wrong = tabled.table.num_rows() == 6000 ? 0 : 1;
  for (int64_t i = 0; i < tabled.table.num_rows(); ++i)
    wrong += tabled.table.column("z").value<int64_t>(i) != 9 * i;
  std::cout << "table in memory: partitions ran on " << ranks_ran << " ranks, " << wrong
            << " rows wrong or out of order\n";
  ok = ok && ranks_ran >= 2 && wrong == 0;
  ember::QueryResult summed = ember::range(6000, 6)
                                  .with_column("y", triple(3)(ember::col("id")))
                                  .agg({ember::col("y").sum()})
                                  .execute();
  ok = show_ranks("agg", summed.stats) && ok;
  std::cout << "agg\n" << summed.table.to_string(10) << "\n";
  // Each rank aggregated its own partitions: no row of theirs travelled, only partial states.
  ember::QueryResult grouped_rows = ember::range(60000, 6)
                                        .with_column("k", ember::col("id") % 20000)
                                        .group_by({"k"})
                                        .agg({ember::col("id").sum().alias("s")})
                                        .execute();
  ok = show_ranks("group-by", grouped_rows.stats) && ok;
  int64_t result_batches = 0, wrong_groups = grouped_rows.table.num_rows() == 20000 ? 0 : 1;
  for (const ember::RankStats& rank : grouped_rows.stats.ranks)
    if (rank.rank > 0) result_batches += rank.peak_results_in_flight;
  for (int64_t k = 0; k < grouped_rows.table.num_rows(); ++k)
    wrong_groups += grouped_rows.table.column("s").value<int64_t>(k) != 3 * k + 60000;
  std::cout << "group-by: " << grouped_rows.table.num_rows() << " groups, " << wrong_groups
            << " wrong, row batches sent to rank 0: " << result_batches << "\n";
  ok = ok && wrong_groups == 0 && result_batches == 0;
  // A join: each rank builds the (small) right side itself and probes it with its partitions.
  ember::QueryResult joined_rows =
      ember::range(6000, 6)
          .with_column("y", triple(3)(ember::col("id")))
          .with_column("k", ember::col("id") % 10)
          .join(ember::range(5, 1).with_column("k", ember::col("id") * 2).select({ember::col("k")}),
                {"k"}, ember::JoinType::Semi)
          .execute();
  ok = show_ranks("join", joined_rows.stats) && ok;
  int64_t join_wrong = joined_rows.table.num_rows() == 3000 ? 0 : 1;
  for (int64_t i = 0; i < joined_rows.table.num_rows(); ++i)  // even ids, in order
    join_wrong += joined_rows.table.column("id").value<int64_t>(i) != 2 * i ||
                  joined_rows.table.column("y").value<int64_t>(i) != 6 * i;
  std::cout << "join: " << joined_rows.table.num_rows() << " rows, " << join_wrong << " wrong\n";
  ok = ok && join_wrong == 0;
  // Past its share of a small memory budget a partition's later rows travel as rows.
  ember::RunOptions small;
  small.memory_budget_bytes = 256 << 10;
  ember::QueryResult past = ember::range(60000, 6)
                                .with_column("k", ember::col("id") % 20000)
                                .group_by({"k"})
                                .agg({ember::col("id").sum().alias("s")})
                                .execute(small);
  int64_t past_batches = 0, past_wrong = past.table.num_rows() == 20000 ? 0 : 1;
  for (const ember::RankStats& rank : past.stats.ranks)
    if (rank.rank > 0) past_batches += rank.peak_results_in_flight;
  for (int64_t k = 0; k < past.table.num_rows(); ++k)
    past_wrong += past.table.column("s").value<int64_t>(k) != 3 * k + 60000;
  std::cout << "group-by past the budget: " << past_wrong << " wrong, "
            << (past_batches > 0 ? "rows sent to rank 0 too" : "no rows sent") << "\n";
  ok = ok && past_wrong == 0 && past_batches > 0;
  // A top-k: each rank keeps its partitions' best rows; only those travel.
  ember::QueryResult top = ember::range(60000, 6)
                               .with_column("m", ember::col("id") % 1000)
                               .top_k(10, {{ember::col("m"), true}})
                               .execute();
  int64_t top_batches = 0, top_wrong = top.table.num_rows() == 10 ? 0 : 1;
  for (const ember::RankStats& rank : top.stats.ranks)
    if (rank.rank > 0) top_batches += rank.peak_results_in_flight;
  for (int64_t i = 0; i < top.table.num_rows(); ++i)  // ids 999, 1999, ... in input order
    top_wrong += top.table.column("id").value<int64_t>(i) != 999 + 1000 * i;
  std::cout << "top-k: " << top_wrong << " rows wrong, row batches sent to rank 0: " << top_batches
            << "\n";
  ok = ok && top_wrong == 0 && top_batches == 0;
  ember::range(6000, 6)
      .with_column("y", triple(3)(ember::col("id")))
      .write_jsonl((dir / "written").string());
  int files = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir / "written")) ++files;
  std::cout << "jsonl files " << files << "\n";
  // Each rank wrote its own partitions' parts; read back, they hold every row, in order.
  ember::QueryResult back = ember::read_jsonl((dir / "written" / "*.jsonl").string()).execute();
  int64_t misplaced = back.table.num_rows() == 6000 ? 0 : 1;
  for (int64_t i = 0; i < back.table.num_rows(); ++i)
    misplaced += back.table.column("id").value<int64_t>(i) != i ||
                 back.table.column("y").value<int64_t>(i) != 3 * i;
  std::cout << "jsonl read back: " << back.table.num_rows() << " rows, misplaced " << misplaced
            << "\n";
  ok = ok && misplaced == 0;
  // A write that fails on one rank leaves neither the target nor a staging directory behind.
  try {
    ember::range(6000, 6)
        .with_column("y", triple(3, {{"fail", "call@2"}})(ember::col("id")))
        .write_csv((dir / "failed").string());
    std::cout << "failed write: no error\n";
  } catch (const ember::UdfError& e) {
    int left = 0;
    for (const auto& f : fs::directory_iterator(dir))
      left += f.path().filename().string().find("failed") != std::string::npos;
    std::cout << "failed write: UdfError, " << left << " entries left\n";
  }
  // The same while ranks aggregate their partitions: a rank's error during its partial states
  // ends the query on every rank, and nothing is written.
  try {
    ember::range(6000, 6)
        .with_column("y", triple(3, {{"fail", "call@2"}})(ember::col("id")))
        .group_by({(ember::col("id") % 10).alias("k")})
        .agg({ember::col("y").sum()})
        .write_parquet((dir / "failed_grouped").string());
    std::cout << "failed group-by write: no error\n";
  } catch (const ember::UdfError& e) {
    int left = 0;
    for (const auto& f : fs::directory_iterator(dir))
      left += f.path().filename().string().find("failed_grouped") != std::string::npos;
    std::cout << "failed group-by write: UdfError, " << left << " entries left\n";
  }
  // An int64 sum past int64 over every rank's partial sums (each fits): an error, not a wrap.
  try {
    ember::range(6000, 6)
        .with_column("big", ember::lit(int64_t{1} << 60))
        .group_by({(ember::col("id") % 2).alias("k")})
        .agg({ember::col("big").sum()})
        .execute();
    std::cout << "overflowing sum: no error\n";
  } catch (const ember::InvalidArgument& e) {
    const bool says = std::string(e.what()).find("does not fit in int64") != std::string::npos;
    std::cout << "overflowing sum: InvalidArgument" << (says ? " saying so" : "") << "\n";
  }
  std::cout << "after the failures: "
            << ember::range(6000, 6)
                   .with_column("y", triple(3)(ember::col("id")))
                   .execute()
                   .table.num_rows()
            << " rows\n";
  auto explain_line = [](const std::string& text) {
    const auto at = text.find("== Cluster partitions ==\n");
    if (at == std::string::npos) return std::string("(none)");
    const auto from = at + 25;
    return text.substr(from, text.find('\n', from) - from);
  };
  std::cout << "explain csv:" << explain_line(csv.explain()) << "\n";
  // Per pipeline: the first spread over the ranks, what follows its breaker on rank 0.
  const std::string grouped = csv.group_by({"name"}).agg({ember::col("y").sum()}).explain();
  const auto pipelines = grouped.find("== Pipelines ==\n");
  std::cout << "explain pipelines:"
            << (pipelines == std::string::npos
                    ? std::string(" (none)")
                    : grouped.substr(pipelines + 16, grouped.find("== Cluster") - pipelines - 16))
            << "\n";
  auto left = ember::range(100, 2);
  auto joined = left.join(ember::range(50, 2), {"id"});
  std::cout << "explain join:" << explain_line(joined.explain()) << "\n";
  const std::string join_plan = joined.explain();
  const auto join_pipelines = join_plan.find("== Pipelines ==\n");
  if (join_pipelines != std::string::npos)
    std::cout << "explain join pipelines:\n"
              << join_plan.substr(join_pipelines + 16,
                                  join_plan.find("== Cluster") - join_pipelines - 16);
  std::cout << "explain right join:"
            << explain_line(
                   left.join(ember::range(50, 2), {"id"}, ember::JoinType::Right).explain())
            << "\n";
  return ok ? 0 : 1;
}

/// Each rank's share of `figure` (bytes read or written) on stdout as percentages; false unless
/// every share lies between 20% and 50%.
bool show_shares(const char* what, const ember::QueryStats& stats,
                 int64_t ember::RankStats::*figure) {
  int64_t total = 0;
  for (const ember::RankStats& r : stats.ranks) total += r.*figure;
  bool even = total > 0;
  std::cout << what << " per rank (% of " << total << "):";
  for (const ember::RankStats& r : stats.ranks) {
    const double share = total > 0 ? 100.0 * static_cast<double>(r.*figure) / total : 0;
    std::cout << " " << static_cast<int>(share + 0.5);
    even = even && share >= 20 && share <= 50;
  }
  std::cout << (even ? ", each between 20% and 50%" : ", NOT each between 20% and 50%") << "\n";
  return even;
}

/// A Parquet file of 30 row groups through a UDF into Parquet on every rank: each rank reads
/// and writes its share of the bytes, rank 0 no more than the others.
int bytes(const fs::path& dir) {
  ember::ParquetWriteOptions groups;
  groups.row_group_rows = 1000;
  ember::range(30000, 1)  // one partition: one file of 30 row groups
      .with_column("v", ember::col("id") * 7)
      .write_parquet((dir / "in").string(), groups);
  fs::create_directories(dir / "markers");
  // A few milliseconds a call: each rank's actor, not the machine's scheduling, sets its pace.
  auto slow = ember::Udf::cls<Dawdler>("dawdler")
                  .returns(ember::int64())
                  .init_args({{"ms", int64_t{4}}, {"marker_dir", (dir / "markers").string()}})
                  .batch_size(250)
                  .concurrency(3);
  ember::QueryResult r = ember::read_parquet((dir / "in" / "*.parquet").string())
                             .with_column("y", slow(ember::col("id")))
                             .write_parquet((dir / "out").string(), groups);
  bool ok = show_ranks("parquet", r.stats);
  ok = show_shares("bytes read", r.stats, &ember::RankStats::bytes_read) && ok;
  ok = show_shares("bytes written", r.stats, &ember::RankStats::bytes_written) && ok;
  int64_t on_disk = 0;
  for (const auto& f : fs::directory_iterator(dir / "out")) on_disk += fs::file_size(f.path());
  int64_t written = 0;
  for (const ember::RankStats& rank : r.stats.ranks) written += rank.bytes_written;
  std::cout << "bytes written " << (written == on_disk ? "match" : "DO NOT MATCH")
            << " the output's size on disk\n";
  ember::QueryResult back = ember::read_parquet((dir / "out" / "*.parquet").string())
                                .agg({ember::col("y").sum(), ember::col("id").count()})
                                .execute();
  std::cout << "read back\n" << back.table.to_string(10) << "\n";
  return ok && written == on_disk ? 0 : 1;
}

/// The cluster and where a GPU pool goes (launched MPMD with GPUs faked on one rank).
int gpu(const fs::path&) {
  const ember::ClusterInfo c = ember::cluster();
  for (const ember::RankInfo& m : c.members)
    std::cout << "rank " << m.rank << ": " << m.resources.gpus << " GPUs, " << m.resources.cpus
              << " CPUs\n";
  auto gpus =
      ember::Udf::cls<GpuCount>("on_gpu").returns(ember::int64()).num_gpus(1).concurrency(2);
  auto df = ember::range(400, 2).with_column("g", gpus(ember::col("id")));
  std::cout << df.explain();
  ember::QueryResult r = df.execute();
  const ember::UdfStats& u = r.stats.udfs.at(0);
  std::cout << "on_gpu actors per rank:";
  for (int a : u.actors_per_rank) std::cout << " " << a;
  std::cout << "\nrows with 1 GPU: " << r.table.column("g").size() << " of " << r.table.num_rows()
            << "\n";
  int64_t one = 0;
  for (int64_t i = 0; i < r.table.num_rows(); ++i) one += r.table.column("g").value<int64_t>(i);
  return one == r.table.num_rows() && check_stats(r.stats, "gpu") ? 0 : 1;
}

/// A query that cannot fit: ResourceError before any actor constructs on any rank.
int admission(const fs::path& dir) {
  fs::create_directories(dir / "markers");
  auto big = triple(7, {{"marker_dir", (dir / "markers").string()}}).num_cpus(1);
  try {
    ember::range(100).with_column("y", big(ember::col("id"))).execute();
    std::cout << "no error\n";
    return 1;
  } catch (const ember::ResourceError& e) {
    std::cout << "ResourceError: " << e.what() << "\n";
  }
  int constructed = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir / "markers")) ++constructed;
  std::cout << "constructed: " << constructed << "\n";
  // Nothing was held: a query that fits runs, its actors constructed once each.
  auto fits = triple(6, {{"marker_dir", (dir / "markers").string()}}).num_cpus(1);
  ember::QueryResult r = ember::range(600, 3).with_column("y", fits(ember::col("id"))).execute();
  constructed = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir / "markers")) ++constructed;
  std::cout << "then constructed: " << constructed << ", rows " << r.table.num_rows() << "\n";
  return check_stats(r.stats, "admission") && constructed == 6 ? 0 : 1;
}

/// An error on one rank ends the query with the same type, naming the rank; the cluster then
/// runs the next query as if nothing happened.
int failure(const fs::path&, const std::string& how) {
  try {
    ember::range(3000, 3).with_column("y", triple(3, {{"fail", how}})(ember::col("id"))).execute();
    std::cout << "no error\n";
    return 1;
  } catch (const ember::UdfError& e) {
    std::cout << "UdfError: " << e.what() << "\n";
  }
  ember::QueryResult r =
      ember::range(900, 3).with_column("y", triple(3)(ember::col("id"))).execute();
  std::cout << "next query: " << r.table.num_rows() << " rows\n";
  return check_stats(r.stats, "after") ? 0 : 1;
}

/// Process-isolated actors on the ranks: the worker of rank 2 crashes on its first batch, and
/// its rank restarts it and runs the batch again; every row comes back once, in order.
int process_crash(const fs::path& dir) {
  auto udf = triple(3, {{"fail", "crash_once@2"}, {"crash_marker", (dir / "crashed").string()}})
                 .isolation(ember::Isolation::Process)
                 .max_retries(1);
  ember::QueryResult r = ember::range(3000, 3).with_column("y", udf(ember::col("id"))).execute();
  bool ok = r.table.num_rows() == 3000;
  for (int64_t i = 0; ok && i < r.table.num_rows(); ++i)
    ok = r.table.column("y").value<int64_t>(i) == 3 * i;
  const ember::UdfStats& u = r.stats.udfs.at(0);
  std::cout << "rows " << r.table.num_rows() << (ok ? " all correct" : " WRONG") << ", retries "
            << u.retries << ", inits per rank";
  for (int64_t i : u.inits_per_rank) std::cout << " " << i;
  std::cout << "\n";
  return ok ? 0 : 1;
}

/// The progress bar on rank 0 counts every rank's partitions and rows as they run: rank 0's
/// two partitions wait until the other ranks' four are done, then take 5.5 s each on its actor,
/// so at least one plain line (one every 5 s) is printed 5 s or more after the others finished
/// and before rank 0's last one does: it shows those four done and every row read. The last
/// line shows all six.
int progress(const fs::path& dir) {
  const fs::path markers = dir / "progress-markers";
  fs::create_directories(markers);
  auto nap = ember::Udf::cls<Napper>("napper")
                 .returns(ember::int64())
                 .init_args({{"ms", int64_t{5500}},
                             {"rows", int64_t{100}},
                             {"others", int64_t{4}},
                             {"marker_dir", markers.string()}})
                 .batch_size(100)
                 .concurrency(3);
  ember::RunOptions o;
  o.progress = true;
  ember::QueryResult r = ember::range(600, 6).with_column("y", nap(ember::col("id"))).execute(o);
  show_ranks("progress", r.stats);
  check_stats(r.stats, "progress");
  std::cout << "progress query: " << r.table.num_rows() << " rows\n";
  return r.table.num_rows() == 600 ? 0 : 1;
}

/// Rows sent back to rank 0 are held to a window per rank: far more batches than the window
/// (3M rows in 12 partitions, 8Ki-row slices: about 125 batches per worker rank), each back in
/// input order, and no rank ever had more than 8 out that rank 0 had not taken.
int backpressure(const fs::path&) {
  constexpr int64_t kRows = 3'000'000;
  ember::QueryResult r =
      ember::range(kRows, 12).with_column("y", ember::col("id") + ember::col("id")).execute();
  bool right = r.table.num_rows() == kRows;
  const ember::Column& id = r.table.column("id");
  const ember::Column& y = r.table.column("y");
  for (int64_t i = 0; right && i < kRows; ++i)
    right = id.value<int64_t>(i) == i && y.value<int64_t>(i) == 2 * i;
  std::cout << "rows " << r.table.num_rows() << (right ? " in input order" : " WRONG") << "\n";
  std::cout << "peak results in flight per rank:";
  bool bounded = true;
  for (const ember::RankStats& rank : r.stats.ranks) {
    std::cout << " " << rank.peak_results_in_flight;
    bounded = bounded && rank.peak_results_in_flight <= 8;
  }
  std::cout << "\n";
  return right && bounded ? 0 : 1;
}

/// Partitions go to the ranks as they ask for them: with one actor on each rank and rank 2's
/// calls 5 times as slow (the test launches it alone with EMBER_TEST_SLOW_RANK_FACTOR=5), rank 2
/// runs fewer than half as many of the 60 partitions as each other rank, and every row comes
/// back once, in input order. A limit met early, and a failure in a partition handed out on
/// request, end the query while partitions are still to be handed out.
int straggler(const fs::path&) {
  constexpr int64_t kPartitions = 60, kRows = kPartitions * 40;  // 4 batches per partition
  auto straggling = [](int64_t fail_id) {
    return ember::Udf::cls<Straggler>("straggler")
        .returns(ember::int64())
        .init_args({{"ms", int64_t{20}}, {"fail_id", fail_id}})
        .batch_size(10)
        .concurrency(3);
  };
  auto udf = straggling(-1);
  auto query =
      ember::range(kRows, static_cast<int>(kPartitions)).with_column("y", udf(ember::col("id")));
  ember::QueryResult r = query.execute();
  // The reference: ids 0 .. kRows - 1, each once, in order.
  const ember::Column& y = r.table.column("y");
  int64_t sum = 0;
  bool ordered = r.table.num_rows() == kRows;
  for (int64_t i = 0; i < r.table.num_rows(); ++i) {
    sum += y.value<int64_t>(i);
    ordered = ordered && y.value<int64_t>(i) == i;
  }
  std::cout << "straggler: rows " << r.table.num_rows() << ", sum " << sum
            << (ordered ? ", in input order" : ", NOT in input order") << "\n";
  const bool sum_right = sum == kRows * (kRows - 1) / 2;
  int64_t all = 0;
  std::cout << "straggler: partitions per rank";
  for (const ember::RankStats& rank : r.stats.ranks) {
    std::cout << " " << rank.partitions;
    all += rank.partitions;
  }
  bool fewer = r.stats.ranks.size() == 3;
  for (size_t fast = 0; fewer && fast < 2; ++fast)
    fewer = 2 * r.stats.ranks[2].partitions < r.stats.ranks[fast].partitions;
  std::cout << " (" << all << " in all), the slow rank ran "
            << (fewer ? "fewer than half of each fast rank's" : "NOT fewer than half") << "\n";
  const std::string plan = query.explain();
  const auto at = plan.find("== Cluster partitions ==\n");
  if (at != std::string::npos)
    std::cout << "explain straggler: " << plan.substr(at + 25, plan.find('\n', at + 25) - at - 25)
              << "\n";
  bool ok =
      ordered && sum_right && fewer && all == kPartitions && check_stats(r.stats, "straggler");
  // The first 25 rows, whichever ranks ran their partitions; the rest are never handed out.
  ember::QueryResult limited = query.limit(25).execute();
  bool first = limited.table.num_rows() == 25;
  for (int64_t i = 0; first && i < 25; ++i)
    first = limited.table.column("y").value<int64_t>(i) == i;
  std::cout << "straggler limit: " << limited.table.num_rows()
            << (first ? " rows, the first ones" : " rows, WRONG") << "\n";
  // Partition 40 (ids 1600..1639) is handed out on request, to whichever rank asks first.
  try {
    ember::range(kRows, static_cast<int>(kPartitions))
        .with_column("y", straggling(1605)(ember::col("id")))
        .execute();
    std::cout << "straggler failure: no error\n";
    ok = false;
  } catch (const ember::UdfError& e) {
    std::cout << "straggler failure: UdfError: " << e.what() << "\n";
  }
  return ok && first ? 0 : 1;
}

/// Malformed input: the ParseError with its file:line:column.
int bad_input(const fs::path& dir) {
  fs::create_directories(dir / "bad");
  std::ofstream(dir / "bad" / "bad.csv") << "x\n1\n2\n\"open\n";
  try {
    ember::read_csv((dir / "bad" / "*.csv").string())
        .with_column("y", triple(3)(ember::col("x")))
        .execute();
    std::cout << "no error\n";
    return 1;
  } catch (const ember::ParseError& e) {
    std::cout << "ParseError: " << e.what() << "\n";
  }
  return 0;
}

/// Malformed input in a partition another rank reads: its ParseError, naming that rank.
int bad_input_elsewhere(const fs::path& dir) {
  fs::create_directories(dir / "bad");
  std::ofstream(dir / "bad" / "a.csv") << "x\n1\n2\n";
  std::ofstream(dir / "bad" / "b.csv") << "x\n3\n4\n";
  std::ofstream(dir / "bad" / "c.csv") << "x\n5\nsix\n";
  ember::CsvOptions options;
  options.schema = ember::Schema({{"x", ember::int64()}});
  try {
    ember::read_csv((dir / "bad" / "*.csv").string(), options)
        .with_column("y", triple(3)(ember::col("x")))
        .execute();
    std::cout << "no error\n";
    return 1;
  } catch (const ember::ParseError& e) {
    std::cout << "ParseError: " << e.what() << "\n";
  }
  ember::QueryResult r =
      ember::range(900, 3).with_column("y", triple(3)(ember::col("id"))).execute();
  std::cout << "next query: " << r.table.num_rows() << " rows\n";
  return 0;
}

/// A rank that dies: mpirun ends the job (this never returns normally under mpirun).
int killed(const fs::path&) {
  ember::range(3000, 3)
      .with_column("y", triple(3, {{"fail", "kill@2"}})(ember::col("id")))
      .execute();
  std::cout << "the query finished although rank 2 was killed\n";
  return 1;
}

/// The files under `dir` with their sizes, one line each, in name order.
std::string listing(const fs::path& dir) {
  std::vector<std::string> lines;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    lines.push_back(fs::relative(f.path(), dir).string() + " " +
                    (f.is_regular_file() ? std::to_string(f.file_size()) : "dir"));
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

/// A rank that stops answering (the test sends it SIGSTOP once "started-rank2" appears in
/// WORKDIR): the write over an older result fails with an error naming the rank, the older
/// result is left as it was and no staging directory remains. Under mpirun the job then ends
/// (non-zero) when this program exits.
int hung(const fs::path& dir, const fs::path& markers) {
  const fs::path out = dir / "out";
  ember::range(300, 3).with_column("y", triple(3)(ember::col("id"))).write_csv(out.string());
  const std::string before = listing(out);
  auto slow = ember::Udf::cls<Dawdler>("dawdler")
                  .returns(ember::int64())
                  .init_args({{"ms", int64_t{200}}, {"marker_dir", markers.string()}})
                  .batch_size(10)
                  .concurrency(3);
  try {
    ember::range(3000, 3).with_column("y", slow(ember::col("id"))).write_csv(out.string());
    std::cout << "the write finished although a rank was stopped" << std::endl;
    return 1;
  } catch (const ember::UdfError& e) {
    std::cout << "UdfError: " << e.what() << std::endl;
  }
  int staging = 0;
  for (const auto& f : fs::directory_iterator(dir))
    staging += f.path().filename() != "out" &&
               f.path().filename().string().find("out") != std::string::npos;
  std::cout << "older output " << (listing(out) == before ? "untouched" : "CHANGED")
            << ", staging directories left: " << staging << std::endl;
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SCENARIO WORKDIR\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  // "noinit" is a program that forgets ember::init: under mpirun it must fail clearly.
  if (scenario == "hung") {
    // Before init, which a worker rank never returns from: each rank's pid, for the test to
    // stop one of them.
    const fs::path pids = fs::path(argv[2]) / "pids";
    fs::create_directories(pids);
    std::ofstream(pids / ("rank" + std::to_string(my_rank()))) << ::getpid() << "\n";
  }
  if (scenario != "noinit") ember::init(argc, argv);
  const fs::path dir = fs::path(argv[2]) / ("rank" + std::to_string(my_rank()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    if (scenario == "queries") return queries(dir);
    if (scenario == "gpu") return gpu(dir);
    if (scenario == "spread") return spread(dir);
    if (scenario == "bytes") return bytes(dir);
    if (scenario == "admission") return admission(dir);
    if (scenario == "call_error") return failure(dir, "call@2");
    if (scenario == "init_error") return failure(dir, "init@1");
    if (scenario == "bad_input") return bad_input(dir);
    if (scenario == "bad_input_elsewhere") return bad_input_elsewhere(dir);
    if (scenario == "process_crash") return process_crash(dir);
    if (scenario == "killed") return killed(dir);
    if (scenario == "progress") return progress(dir);
    if (scenario == "backpressure") return backpressure(dir);
    if (scenario == "straggler") return straggler(dir);
    if (scenario == "udf_timeout") return cluster_app::udf_timeout_on_a_worker_rank(dir);
    if (scenario == "udf_max_concurrency")
      return cluster_app::udf_max_concurrency_on_worker_ranks(dir);
    if (scenario == "noinit") return queries(dir);
    if (scenario == "hung") return hung(dir, argv[2]);
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "cluster_app: %s\n", e.what());
    return 3;
  }
  std::fprintf(stderr, "unknown scenario '%s'\n", scenario.c_str());
  return 2;
}
