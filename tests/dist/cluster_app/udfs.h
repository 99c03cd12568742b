// The cluster app's UDF classes: what each does on which rank, as the scenarios set it up with
// init_args and environment variables (registered in udfs.cpp).
#pragma once

#include <ember/ember.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "rank.h"

namespace cluster_app {

namespace fs = std::filesystem;

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

/// Reports the GPUs its actor holds (as a count per row).
struct GpuCount {
  GpuCount(const ember::InitArgs&, const ember::ActorContext& ctx)
      : gpus(static_cast<int64_t>(ctx.gpu_ids.size())) {}
  ember::Column operator()(const ember::Batch& in) const {
    return ember::Column::from(std::vector<int64_t>(static_cast<size_t>(in.num_rows()), gpus));
  }
  int64_t gpus;
};

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

/// x * 3 for int64 after `ms` per batch, a resumable job's UDF; on the rank that
/// EMBER_TEST_KILL_RANK names (the test sets it for the run it kills), its first call waits until
/// the write's journal (init arg `journal`) lists `pieces` finished pieces (at most 30 s), then
/// kills the rank: a rank lost part-way through the job, whatever the machine's pace. With the init
/// arg `stall_until_requeued` true, in a Slurm job's first run (SLURM_RESTART_COUNT unset or 0)
/// every call waits once the journal lists `pieces` pieces, on every rank, until Slurm ends the
/// job (at most 60 s): a job requeued part-way, however fast the machine. Its init args are the
/// same in every run, so that the runs are the same query.
struct Doomed {
  explicit Doomed(const ember::InitArgs& args)
      : journal(args.get<std::string>("journal")),
        pieces(args.get<int64_t>("pieces")),
        ms(args.get<int64_t>("ms")) {
    const char* rank = std::getenv("EMBER_TEST_KILL_RANK");
    doomed = rank && *rank && std::atoi(rank) == my_rank();
    const char* restarts = std::getenv("SLURM_RESTART_COUNT");
    stalled = args.get<bool>("stall_until_requeued") && (!restarts || std::atoi(restarts) == 0);
  }
  ember::Column operator()(const ember::Batch& in) const {
    if (doomed) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (listed_pieces() < pieces && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::raise(SIGKILL);
    }
    if (stalled && listed_pieces() >= pieces) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const ember::Column& x = in.column(0);
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(x.value<int64_t>(i) * 3);
    return ember::Column::from(std::move(out));
  }
  int64_t listed_pieces() const {
    std::ifstream file(journal);
    int64_t n = 0;
    for (std::string line; std::getline(file, line);) n += line.rfind("piece ", 0) == 0;
    return n;
  }
  std::string journal;
  int64_t pieces;
  int64_t ms;
  bool doomed = false;
  bool stalled = false;
};

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

/// x * 5 for int64: a stateless UDF's plain function, registered (EMBER_REGISTER_FN) so that
/// every rank can call it.
ember::Column quintuple(const ember::Batch& in);

}  // namespace cluster_app
