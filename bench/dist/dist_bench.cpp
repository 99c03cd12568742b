// The MPI runner's costs and gains, one measurement per invocation; bench/dist/run.sh runs each
// locally and under mpirun in the same run and prints the ratios.
//   ember_bench_dist parquet ACTORS DIR a Parquet file of 48 row groups through a UDF whose
//                                       every call sleeps 20 ms (a stand-in for a remote GPU)
//                                       into Parquet, with ACTORS actors: rows/s; a second line,
//                                       "share <fraction>", is rank 0's share of the bytes read
//                                       and written over all ranks (each rank's bytes on
//                                       stderr; DIR holds the input, written first, and the
//                                       output)
//   ember_bench_dist transfer           one 64 MiB batch to an actor and back (the actor fits
//                                       only on a rank given EMBER_CPUS=4): seconds per query,
//                                       median of 4 after a first one
//   ember_bench_dist straggler          60 partitions through one actor per rank whose calls
//                                       sleep 20 ms, times EMBER_BENCH_SLOW_RANK_FACTOR on a
//                                       rank given it: seconds for the query (partitions per
//                                       rank on stderr)
//   ember_bench_dist groupby GROUPS     a group-by of 10M rows (30 partitions) into GROUPS groups
//                                       (sum, count): seconds for the query, and a line
//                                       "shuffled <rows>": the groups the ranks exchanged
//   ember_bench_dist groupwrite GROUPS DIR  a group-by of 10M rows (30 partitions) into GROUPS
//                                       groups (sum, count) written to Parquet in DIR: seconds
//                                       for the query, and a line "share <fraction>": rank 0's
//                                       share of the bytes written
//   ember_bench_dist sort               a sort of 10M rows (30 partitions) on a shuffled key,
//                                       collected: seconds for the query
//   ember_bench_dist sortwrite DIR      the same sort written to Parquet in DIR: seconds for the
//                                       query, and a line "share <fraction>": rank 0's share of
//                                       the bytes written
//   ember_bench_dist joinprep DIR ROWS  writes the join's inputs under DIR (once): 10M fact rows
//                                       (30 files) and a dimension of ROWS rows; prints
//                                       "result <the dimension's file bytes>"
//   ember_bench_dist join DIR ROWS      the 10M fact rows joined with the dimension of ROWS rows
//                                       (every fact row matches one), then grouped into 1,000
//                                       groups: seconds for the query, and a line "shuffled
//                                       <rows>": the rows the ranks exchanged
// Prints a line "result <number>".
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

/// Sleeps 20 ms per call and returns its argument.
struct Sleepy {
  explicit Sleepy(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return in.column(0);
  }
};
EMBER_REGISTER_UDF(Sleepy);

/// Returns its argument unchanged (the batch makes the round trip, nothing else).
struct Identity {
  explicit Identity(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) const { return in.column(0); }
};
EMBER_REGISTER_UDF(Identity);

/// Sleeps 20 ms per call, or EMBER_BENCH_SLOW_RANK_FACTOR times as long on a rank whose
/// environment sets it (a slower machine, a busier GPU), and returns its argument.
struct Straggler {
  explicit Straggler(const ember::InitArgs&) {
    const char* factor = std::getenv("EMBER_BENCH_SLOW_RANK_FACTOR");
    if (factor && *factor) ms *= std::max(1, std::atoi(factor));
  }
  ember::Column operator()(const ember::Batch& in) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return in.column(0);
  }
  int ms = 20;
};
EMBER_REGISTER_UDF(Straggler);

/// Rows per second of the job users run, Parquet -> latency-bound UDF -> Parquet, and rank 0's
/// share of the file bytes the ranks read and wrote for it.
struct ParquetJob {
  double rows_per_second = 0;
  double rank0_share = 0;
};

ParquetJob parquet(int actors, const std::filesystem::path& dir) {
  // 48 row groups (partitions) of 8 calls of 64 rows: 384 calls, 7.7 s of sleeping for one
  // actor. The input is written afresh by every run, before the timed query, so that it always
  // matches these figures (24,576 rows: quick to write).
  constexpr int64_t kRowGroups = 48;
  constexpr int64_t kRowsPerGroup = 8 * 64;
  ember::ParquetWriteOptions groups;
  groups.row_group_rows = kRowsPerGroup;
  std::filesystem::create_directories(dir);
  ember::range(kRowGroups * kRowsPerGroup, 1)  // one partition: one file of 48 row groups
      .with_column("v", ember::col("id") * 7)
      .write_parquet((dir / "in").string(), groups);
  // Removed first, so that the timed query does not also remove the last run's output.
  std::filesystem::remove_all(dir / "out");
  auto sleepy =
      ember::Udf::cls<Sleepy>("sleepy").returns(ember::int64()).batch_size(64).concurrency(actors);
  ember::QueryResult r = ember::read_parquet((dir / "in" / "*.parquet").string())
                             .with_column("y", sleepy(ember::col("id")))
                             .write_parquet((dir / "out").string());
  if (r.stats.rows_out != kRowGroups * kRowsPerGroup) return {-1, -1};
  int64_t total = 0;
  std::fprintf(stderr, "bytes read+written per rank");
  for (const ember::RankStats& rank : r.stats.ranks) {
    total += rank.bytes_read + rank.bytes_written;
    std::fprintf(stderr, " %lld", static_cast<long long>(rank.bytes_read + rank.bytes_written));
  }
  std::fprintf(stderr, "\n");
  const ember::RankStats& rank0 = r.stats.ranks.at(0);
  return {static_cast<double>(r.stats.rows_out) / r.stats.wall_seconds,
          total > 0 ? static_cast<double>(rank0.bytes_read + rank0.bytes_written) / total : -1};
}

double transfer() {
  constexpr int64_t kRows = (int64_t{64} << 20) / 8;  // 64 MiB of int64
  // Two CPUs per actor: under run.sh's launch only the rank given EMBER_CPUS=4 holds it.
  auto identity = ember::Udf::cls<Identity>("identity")
                      .returns(ember::int64())
                      .batch_size(kRows)
                      .concurrency(1)
                      .num_cpus(2);
  // Five queries; the median of the last four (the first also maps the message memory).
  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) {
    ember::QueryResult r = ember::range(kRows, 1)
                               .with_column("y", identity(ember::col("id")))
                               .select({ember::col("y")})
                               .agg({ember::col("y").count()})
                               .execute();
    if (i > 0) seconds.push_back(r.stats.wall_seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  return (seconds[1] + seconds[2]) / 2;
}

double straggler() {
  // 60 partitions of 4 calls of 10 rows: 240 calls, 1.6 s of sleeping for each of 3 actors
  // when none is slow. One actor per rank (3 ranks), each running its rank's partitions.
  constexpr int kPartitions = 60;
  auto udf =
      ember::Udf::cls<Straggler>("straggler").returns(ember::int64()).batch_size(10).concurrency(3);
  ember::QueryResult r = ember::range(int64_t{kPartitions} * 40, kPartitions)
                             .with_column("y", udf(ember::col("id")))
                             .execute();
  std::fprintf(stderr, "partitions per rank");
  for (const ember::RankStats& rank : r.stats.ranks)
    std::fprintf(stderr, " %lld", static_cast<long long>(rank.partitions));
  std::fprintf(stderr, "\nbatches on other ranks' idle actors");
  for (const ember::RankStats& rank : r.stats.ranks)
    std::fprintf(stderr, " %lld", static_cast<long long>(rank.udf_batches_elsewhere));
  std::fprintf(stderr, "\n");
  if (r.table.num_rows() != int64_t{kPartitions} * 40) return -1;
  return r.stats.wall_seconds;
}

/// 10M rows (30 partitions) grouped into `groups` groups: sum and count.
ember::DataFrame grouped_rows(int64_t groups) {
  constexpr int64_t kRows = 10'000'000;
  return ember::range(kRows, 30)
      .with_column("k", ember::col("id") % groups)
      .group_by({"k"})
      .agg({ember::col("id").sum().alias("s"), ember::col("id").count().alias("n")});
}

double groupby(int64_t groups) {
  ember::QueryResult r = grouped_rows(groups).execute();
  if (r.table.num_rows() != groups) return -1;
  int64_t shuffled = 0;
  for (const ember::RankStats& rank : r.stats.ranks) shuffled += rank.rows_shuffled_out;
  std::printf("shuffled %lld\n", static_cast<long long>(shuffled));
  return r.stats.wall_seconds;
}

/// A write's seconds and rank 0's share of the bytes written.
struct WriteJob {
  double seconds = 0;
  double rank0_share = 0;
};

/// Rank 0's share of the bytes every rank wrote for `r`.
double rank0_share(const ember::QueryResult& r) {
  int64_t all = 0;
  for (const ember::RankStats& rank : r.stats.ranks) all += rank.bytes_written;
  return all > 0 ? static_cast<double>(r.stats.ranks.at(0).bytes_written) / static_cast<double>(all)
                 : 0;
}

WriteJob groupwrite(int64_t groups, const std::string& dir) {
  ember::QueryResult r = grouped_rows(groups).write_parquet(dir);
  if (r.stats.rows_out != groups) return {-1, 0};
  return {r.stats.wall_seconds, rank0_share(r)};
}

constexpr int64_t kSortRows = 10'000'000;

/// 10M rows (30 partitions) sorted by k = id * 7919 mod 10M: every key once, in an order
/// unrelated to the partitions'.
ember::DataFrame sorted_rows() {
  return ember::range(kSortRows, 30)
      .with_column("k", ember::col("id") * 7919 % kSortRows)
      .sort({{ember::col("k")}});
}

WriteJob sortwrite(const std::string& dir) {
  ember::QueryResult r = sorted_rows().write_parquet(dir);
  if (r.stats.rows_out != kSortRows) return {-1, 0};
  return {r.stats.wall_seconds, rank0_share(r)};
}

double sort() {
  constexpr int64_t kRows = kSortRows;
  ember::QueryResult r = sorted_rows().execute();
  const ember::Column& k = r.table.column("k");
  if (r.table.num_rows() != kRows || k.value<int64_t>(0) != 0 ||
      k.value<int64_t>(kRows - 1) != kRows - 1)
    return -1;
  return r.stats.wall_seconds;
}

constexpr int64_t kFactRows = 10'000'000;

std::filesystem::path dimension_dir(const std::filesystem::path& dir, int64_t rows) {
  return dir / ("dimension-" + std::to_string(rows));
}

/// The file bytes under `dir`.
int64_t bytes_under(const std::filesystem::path& dir) {
  int64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) bytes += static_cast<int64_t>(entry.file_size());
  return bytes;
}

/// Writes what is missing of the join's inputs: the fact rows (id, g = id mod 1000) and the
/// dimension (k, v = 3k); returns the dimension's file bytes.
int64_t joinprep(const std::filesystem::path& dir, int64_t rows) {
  if (!std::filesystem::exists(dir / "facts" / "_SUCCESS"))
    ember::range(kFactRows, 30)
        .with_column("g", ember::col("id") % 1000)
        .write_parquet((dir / "facts").string());
  const std::filesystem::path dimension = dimension_dir(dir, rows);
  if (!std::filesystem::exists(dimension / "_SUCCESS"))
    ember::range(rows, 3)
        .select({ember::col("id").alias("k"), (ember::col("id") * 3).alias("v")})
        .write_parquet(dimension.string());
  return bytes_under(dimension);
}

/// Each fact row's key, k = id * 7919 mod ROWS, matches one dimension row.
double join(const std::filesystem::path& dir, int64_t rows) {
  const ember::DataFrame facts = ember::read_parquet((dir / "facts" / "*.parquet").string())
                                     .with_column("k", ember::col("id") * 7919 % rows);
  const ember::DataFrame dimension =
      ember::read_parquet((dimension_dir(dir, rows) / "*.parquet").string());
  ember::QueryResult r =
      facts.join(dimension, {"k"})
          .group_by({"g"})
          .agg({ember::col("v").sum().alias("s"), ember::col("v").count().alias("n")})
          .execute();
  int64_t matched = 0;
  const ember::Column& n = r.table.column("n");
  for (int64_t i = 0; i < r.table.num_rows(); ++i) matched += n.value<int64_t>(i);
  if (r.table.num_rows() != 1000 || matched != kFactRows) return -1;
  int64_t shuffled = 0;
  for (const ember::RankStats& rank : r.stats.ranks) shuffled += rank.rows_shuffled_out;
  std::printf("shuffled %lld\n", static_cast<long long>(shuffled));
  return r.stats.wall_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  double result = 0;
  if (mode == "parquet" && argc > 3) {
    const ParquetJob job = parquet(std::atoi(argv[2]), argv[3]);
    result = job.rows_per_second;
    std::printf("share %.6f\n", job.rank0_share);
  } else if (mode == "transfer") {
    result = transfer();
  } else if (mode == "straggler") {
    result = straggler();
  } else if (mode == "groupby" && argc > 2) {
    result = groupby(std::atoll(argv[2]));
  } else if (mode == "groupwrite" && argc > 3) {
    const WriteJob job = groupwrite(std::atoll(argv[2]), argv[3]);
    result = job.seconds;
    std::printf("share %.6f\n", job.rank0_share);
  } else if (mode == "sortwrite" && argc > 2) {
    const WriteJob job = sortwrite(argv[2]);
    result = job.seconds;
    std::printf("share %.6f\n", job.rank0_share);
  } else if (mode == "sort") {
    result = sort();
  } else if (mode == "joinprep" && argc > 3) {
    result = static_cast<double>(joinprep(argv[2], std::atoll(argv[3])));
  } else if (mode == "join" && argc > 3) {
    result = join(argv[2], std::atoll(argv[3]));
  } else {
    std::fprintf(
        stderr,
        "usage: %s parquet ACTORS DIR | transfer | straggler | groupby GROUPS | "
        "groupwrite GROUPS DIR | sort | sortwrite DIR | joinprep DIR ROWS | join DIR ROWS\n",
        argv[0]);
    return 2;
  }
  std::printf("result %.6f\n", result);
  return 0;
}
