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

#include "kit.h"
#include "rank.h"
#include "scenarios.h"
#include "udf_settings.h"
#include "udfs.h"

namespace fs = std::filesystem;

namespace {

using namespace cluster_app;
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

/// Idle actors are lent: 6 partitions of 10 batches, 2 per rank from the start (none left to
/// hand out), rank 2's calls 5 times as slow: once ranks 0 and 1 have run theirs, rank 2's
/// batches go to their idle actors while its own is busy. Every row comes back once, in order;
/// each batch is counted once (by the rank whose actor ran it) and the spares construct
/// nothing.
bool lending(const ember::Udf& udf, size_t slow) {
  constexpr int64_t kRows = 600;
  ember::QueryResult r = ember::range(kRows, 6).with_column("y", udf(ember::col("id"))).execute();
  bool ordered = r.table.num_rows() == kRows;
  for (int64_t i = 0; ordered && i < kRows; ++i)
    ordered = r.table.column("y").value<int64_t>(i) == i;
  const int64_t moved = r.stats.ranks.size() == 3 ? r.stats.ranks[slow].udf_batches_elsewhere : 0;
  std::cout << "lending: rows " << r.table.num_rows() << (ordered ? " in input order" : " WRONG")
            << ", rank " << slow << "'s batches on other ranks' actors "
            << (moved > 0 ? "some" : "none") << ", batches " << r.stats.udfs.at(0).batches
            << ", inits " << r.stats.udfs[0].inits << "\n";
  return ordered && moved > 0 && r.stats.udfs[0].batches == 60 && r.stats.udfs[0].inits == 3;
}

/// Partitions go to the ranks as they ask for them: with one actor on each rank and rank 2's
/// calls 5 times as slow (the test launches it alone with EMBER_TEST_SLOW_RANK_FACTOR=5), rank 2
/// runs fewer than half as many of the 60 partitions as each other rank, and every row comes
/// back once, in input order. Likewise with rank 0 the slow one (launched so, it sees the
/// variable itself): it paces what it takes for itself as it paces the others. A limit met early,
/// and a failure in a partition handed out on request, end the query while partitions are still to
/// be handed out.
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
  const size_t slow = std::getenv("EMBER_TEST_SLOW_RANK_FACTOR") != nullptr ? 0 : 2;
  bool fewer = r.stats.ranks.size() == 3;
  for (size_t fast = 0; fewer && fast < 3; ++fast)
    if (fast != slow) fewer = 2 * r.stats.ranks[slow].partitions < r.stats.ranks[fast].partitions;
  std::cout << " (" << all << " in all), the slow rank (" << slow << ") ran "
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
  return ok && first && lending(straggling(-1), slow) ? 0 : 1;
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
  if (scenario == "hung" || scenario == "resume_loop") {
    // Before init, which a worker rank never returns from: each rank's pid, for the test to
    // stop or kill one of them.
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
    if (scenario == "s3_write") return s3_write();
    if (scenario == "resume") return resume(argv[2], false);
    if (scenario == "slurm") return resume(argv[2], true);
    if (scenario == "resume_loop") return resume_loop(argv[2]);
    if (scenario == "resume_breaker") return resume_breaker(argv[2]);
    if (scenario == "resume_join") return resume_join(argv[2]);
    if (scenario == "exchange_joins") return exchange_joins(dir);
    if (scenario == "exchange_join_spread") return exchange_join_spread(dir);
    if (scenario == "resume_loop_check") return resume_loop_check(argv[2]);
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
