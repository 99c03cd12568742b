// The MPI runner's costs and gains, one measurement per invocation; bench/dist/run.sh runs each
// locally and under mpirun in the same run and prints the ratios.
//   ember_bench_dist latency ACTORS     a UDF whose every call sleeps 20 ms (a stand-in for a
//                                       remote GPU): rows/s with ACTORS actors
//   ember_bench_dist transfer           one 64 MiB batch to an actor and back (the actor fits
//                                       only on a rank given EMBER_CPUS=4): seconds per query,
//                                       median of 4 after a first one
//   ember_bench_dist straggler          60 partitions through one actor per rank whose calls
//                                       sleep 20 ms, times EMBER_BENCH_SLOW_RANK_FACTOR on a
//                                       rank given it: seconds for the query (partitions per
//                                       rank on stderr)
// Prints one line: "result <number>".
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

double latency(int actors) {
  // 360 calls of 64 rows: 7.2 s of sleeping for one actor.
  auto sleepy =
      ember::Udf::cls<Sleepy>("sleepy").returns(ember::int64()).batch_size(64).concurrency(actors);
  ember::QueryResult r =
      ember::range(360 * 64, 6).with_column("y", sleepy(ember::col("id"))).execute();
  return static_cast<double>(r.table.num_rows()) / r.stats.wall_seconds;
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
  std::fprintf(stderr, "\n");
  if (r.table.num_rows() != int64_t{kPartitions} * 40) return -1;
  return r.stats.wall_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  double result = 0;
  if (mode == "latency" && argc > 2) {
    result = latency(std::atoi(argv[2]));
  } else if (mode == "transfer") {
    result = transfer();
  } else if (mode == "straggler") {
    result = straggler();
  } else {
    std::fprintf(stderr, "usage: %s latency ACTORS | transfer | straggler\n", argv[0]);
    return 2;
  }
  std::printf("result %.6f\n", result);
  return 0;
}
