// Scenarios of where work runs: partitions, aggregates, top-k and joins on every rank, explain(),
// failures while ranks aggregate, and each rank's share of the bytes read and written.
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

/// url_download on every rank: each fetches its own partitions' files (here local paths, as a
/// shared filesystem would hold them); rows come back in input order with their bytes. One file
/// in 60 is missing: its rows get a null (OnError::Null), and each is a row of rejected, sent
/// to rank 0 by the rank that tried it, in input order.
bool downloads(const fs::path& dir) {
  fs::create_directories(dir / "dl");
  constexpr int kMissing = 13;
  for (int i = 0; i < 60; ++i)
    if (i != kMissing)
      std::ofstream(dir / "dl" / ("f" + std::to_string(i))) << std::string(size_t(i), 'a' + i % 26);
  ember::DownloadOptions nulls;
  nulls.on_error = ember::OnError::Null;
  ember::QueryResult r =
      ember::range(600, 6)
          .with_column("url", ember::concat({ember::lit((dir / "dl" / "f").string()),
                                             (ember::col("id") % 60).cast(ember::utf8())}))
          .with_column("img", ember::col("url").url_download(nulls))
          .execute();
  const bool every = show_ranks("download", r.stats);
  int64_t wrong = r.table.num_rows() == 600 ? 0 : 1;
  for (int64_t i = 0; wrong == 0 && i < r.table.num_rows(); ++i) {
    const int64_t k = r.table.column("id").value<int64_t>(i) % 60;
    const ember::Column& img = r.table.column("img");
    wrong += r.table.column("id").value<int64_t>(i) != i ||
             (k == kMissing ? !img.is_null(i)
                            : img.value<std::string>(i) !=
                                  std::string(size_t(k), static_cast<char>('a' + k % 26)));
  }
  int64_t rejected_wrong = r.rejected.num_rows() == 10 ? 0 : 1;
  for (int64_t i = 0; rejected_wrong == 0 && i < r.rejected.num_rows(); ++i)
    rejected_wrong += r.rejected.column("url").value<std::string>(i) !=
                      (dir / "dl" / "f").string() + std::to_string(kMissing);
  std::cout << "download: " << r.table.num_rows() << " rows, " << wrong << " wrong, "
            << r.rejected.num_rows() << " rejected, " << rejected_wrong << " wrong\n";
  return every && wrong == 0 && rejected_wrong == 0;
}

/// A stateless UDF whose plain function is registered runs on every rank, with the same rows as
/// on one machine; a lambda keeps the query on rank 0, and explain() says how to make it travel.
bool functions() {
  const ember::Udf five = ember::Udf::fn("five", quintuple).returns(ember::int64());
  ember::QueryResult r = ember::range(6000, 6).with_column("y", five(ember::col("id"))).execute();
  const bool every = show_ranks("registered function", r.stats);
  int64_t wrong = r.table.num_rows() == 6000 ? 0 : 1;
  for (int64_t i = 0; wrong == 0 && i < r.table.num_rows(); ++i)
    wrong += r.table.column("id").value<int64_t>(i) != i ||
             r.table.column("y").value<int64_t>(i) != 5 * i;
  std::cout << "registered function: " << r.table.num_rows() << " rows, " << wrong << " wrong\n";
  const ember::Udf lambda = ember::Udf::fn("lambda", [](const ember::Batch& in) {
                              return quintuple(in);
                            }).returns(ember::int64());
  auto on_rank_0 = ember::range(6000, 6).with_column("y", lambda(ember::col("id")));
  ember::QueryResult kept = on_rank_0.execute();
  int ranks_ran = 0;
  for (const ember::RankStats& rank : kept.stats.ranks) ranks_ran += rank.partitions > 0;
  std::cout << "lambda: partitions ran on " << ranks_ran << " rank(s), " << kept.table.num_rows()
            << " rows\n";
  std::cout << "explain lambda:" << explain_line(on_rank_0.explain()) << "\n";
  return every && wrong == 0 && ranks_ran == 1 && kept.table.num_rows() == 6000;
}

}  // namespace

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
  ok = downloads(dir) && ok;
  ok = functions() && ok;
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
  // The groups went by key to the rank that merges them: every rank sent and received some.
  int64_t shuffled_out = 0, shuffled_in = 0;
  bool every_rank_exchanged = true;
  for (const ember::RankStats& rank : grouped_rows.stats.ranks) {
    shuffled_out += rank.rows_shuffled_out;
    shuffled_in += rank.rows_shuffled_in;
    every_rank_exchanged =
        every_rank_exchanged && rank.rows_shuffled_out > 0 && rank.rows_shuffled_in > 0;
  }
  std::cout << "group-by exchange: " << (every_rank_exchanged ? "every rank" : "NOT every rank")
            << " sent and received groups, " << (shuffled_out == shuffled_in ? "" : "un")
            << "balanced\n";
  ok = ok && every_rank_exchanged && shuffled_out == shuffled_in;
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
  // A right join: each rank probes its partitions and tells rank 0 which right rows matched;
  // rank 0 adds those no rank matched (keys 10..18) after every left row, in order.
  ember::QueryResult right_rows =
      ember::range(6000, 6)
          .with_column("k", ember::col("id") % 10)
          .join(
              ember::range(10, 1).with_column("k", ember::col("id") * 2).select({ember::col("k")}),
              {"k"}, ember::JoinType::Right)
          .execute();
  ok = show_ranks("right join", right_rows.stats) && ok;
  const ember::Table& rt = right_rows.table;
  int64_t right_wrong = rt.num_rows() == 3005 ? 0 : 1;
  for (int64_t i = 0; right_wrong == 0 && i < rt.num_rows(); ++i)
    right_wrong += i < 3000 ? rt.column("id").value<int64_t>(i) != 2 * i
                            : !rt.column("id").is_null(i) ||
                                  rt.column("k").value<int64_t>(i) != 10 + 2 * (i - 3000);
  std::cout << "right join: " << rt.num_rows() << " rows, " << right_wrong << " wrong\n";
  ok = ok && right_wrong == 0;
  // Past its share of a small memory budget a partition spills where it runs, and its shares
  // carry what it spilled: no row travels.
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
  ok = ok && past_wrong == 0 && past_batches == 0;
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

/// A Parquet file of 30 row groups through a UDF into Parquet on every rank: each rank reads
/// and writes its share of the bytes, rank 0 no more than the others.
int bytes(const fs::path& dir) {
  ember::ParquetWriteOptions groups;
  groups.row_group_rows = 1000;
  ember::range(30000, 1)  // one partition: one file of 30 row groups
      .with_column("v", ember::col("id") * 7)
      .write_parquet((dir / "in").string(), groups);
  fs::create_directories(dir / "markers");
  // 15 ms a call: each rank's actor, not the machine's scheduling (3 ranks share its CPUs with
  // whatever else runs), sets its pace.
  auto slow = ember::Udf::cls<Dawdler>("dawdler")
                  .returns(ember::int64())
                  .init_args({{"ms", int64_t{15}}, {"marker_dir", (dir / "markers").string()}})
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
  // The groups of the same input, written by key range: each rank writes the groups of one
  // range as its part, and the parts read in order hold them in key order, as collected.
  auto grouped = ember::read_parquet((dir / "in" / "*.parquet").string())
                     .group_by({(ember::col("id") % 3000).alias("k")})
                     .agg({ember::col("v").sum().alias("s"), ember::col("id").count()});
  ember::QueryResult g = grouped.write_parquet((dir / "groups").string());
  ok = show_shares("group-by bytes written", g.stats, &ember::RankStats::bytes_written) && ok;
  int parts = 0;
  for (const auto& f : fs::directory_iterator(dir / "groups"))
    parts += f.path().extension() == ".parquet" ? 1 : 0;
  const std::string collected = grouped.execute().table.to_string(1 << 20);
  const std::string read = ember::read_parquet((dir / "groups" / "*.parquet").string())
                               .execute()
                               .table.to_string(1 << 20);
  const bool same = read == collected && g.stats.rows_out == 3000;
  std::cout << "group-by write: " << g.stats.rows_out << " groups in " << parts << " parts, "
            << (same ? "in key order as collected" : "NOT as collected") << "\n";
  // A sort of the same input by a key with ties, written by key range: each rank keeps its
  // partitions sorted, and the parts read in order hold the rows as collected (ties in input
  // order).
  auto ordered = ember::read_parquet((dir / "in" / "*.parquet").string())
                     .with_column("t", ember::col("id") % 1000)
                     .sort({{ember::col("t"), true}});
  ember::QueryResult s = ordered.write_parquet((dir / "sorted").string(), groups);
  ok = show_shares("sort bytes written", s.stats, &ember::RankStats::bytes_written) && ok;
  const bool sorted_same =
      ember::read_parquet((dir / "sorted" / "*.parquet").string())
              .execute()
              .table.to_string(1 << 20) == ordered.execute().table.to_string(1 << 20) &&
      s.stats.rows_out == 30000;
  std::cout << "sort write: " << s.stats.rows_out << " rows, "
            << (sorted_same ? "in key order as collected" : "NOT as collected") << "\n";
  return ok && same && sorted_same && written == on_disk ? 0 : 1;
}

}  // namespace cluster_app
