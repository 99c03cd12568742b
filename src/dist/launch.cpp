// ember::init under mpirun: MPI start-up, the resource exchange, and the split between the
// driver (rank 0) and the serving ranks; the driver's exit ends every rank. A rank that stops
// answering ends the job instead (rank_watch.h): at start-up, while queries run, and at exit.
#include "dist/launch.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "dist/mpi_transport.h"
#include "dist/rank_server.h"
#include "dist/rank_timeout.h"
#include "dist/rank_watch.h"
#include "dist/remote_actor.h"
#include "dist/transport_runtime.h"
#include "resources/machine_resources.h"
#include "resources/resource_pool.h"
#include "udf/process/wire_message.h"

#if EMBER_HAVE_MPI
#include <mpi.h>
#endif

namespace ember::dist {

namespace {

struct LaunchState {
  std::mutex mu;
  bool initialised = false;         // guarded by mu
  std::optional<ClusterInfo> info;  // guarded by mu; set on rank 0 under MPI
  std::condition_variable changed;  // rank 0: a goodbye arrived, or a rank was lost
  int goodbyes = 0;                 // guarded by mu; rank 0: worker ranks done serving
  std::string lost;                 // guarded by mu; rank 0: why the first lost rank was lost
  std::shared_ptr<ClusterRuntime> runtime;  // guarded by mu; rank 0 under MPI, until exit
};

LaunchState& launch_state() {
  static LaunchState s;
  return s;
}

std::optional<int> env_int(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > (1 << 24)) return std::nullopt;
  return static_cast<int>(v);
}

/// (rank, ranks) as the launcher told this process: Open MPI's mpirun, a PMI launcher, or
/// Slurm's srun; nullopt when no launcher started it.
std::optional<std::pair<int, int>> launcher_rank() {
  if (auto size = env_int("OMPI_COMM_WORLD_SIZE"))
    return std::pair{env_int("OMPI_COMM_WORLD_RANK").value_or(0), *size};
  if (auto size = env_int("PMI_SIZE")) return std::pair{env_int("PMI_RANK").value_or(0), *size};
  if (std::getenv("SLURM_STEP_ID") != nullptr) {
    if (auto size = env_int("SLURM_NTASKS"))
      return std::pair{env_int("SLURM_PROCID").value_or(0), *size};
  }
  return std::nullopt;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

#if EMBER_HAVE_MPI

/// A worker rank's start-up report to rank 0 (only before the transport starts).
constexpr int kTagHello = 7;
/// A worker rank gives rank 0 this many times the limit before it ends the job over rank 0's
/// silence: rank 0 hears of a silence between them first, and it can end the query cleanly and
/// name the rank, where a worker can only abort.
constexpr double kWorkerPatience = 2;

RankWatch& watch() {
  static RankWatch w;
  return w;
}

/// This process's transport, made once MPI is initialised and never destroyed: the watch's
/// thread and the exit handlers use it until the process ends.
MpiTransport* the_transport = nullptr;

MpiTransport& transport() { return *the_transport; }

void send_heartbeat(int dest, std::string bytes) {
  transport().send(dest, kTagHeartbeat, std::string_view(bytes));
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

/// How long MPI_Abort may take to end the job before this rank exits by itself, which has
/// mpirun end the others as well (a rank that exits without MPI_Finalize fails the job).
constexpr std::chrono::seconds kAbortPatience{10};

/// Ends the job from this rank: what the program printed first, then `why` on stderr, then
/// MPI_Abort, which has mpirun end every rank (a stopped one too: it gets SIGKILL) and exit
/// non-zero. The transport's thread leaves MPI first, so that MPI_Abort is the only MPI call
/// under way (MPI_THREAD_SERIALIZED), and should the abort stall anyway, this rank exits after
/// kAbortPatience. Never returns.
[[noreturn]] void abort_job(const std::string& why) {
  std::fflush(nullptr);
  std::fprintf(stderr, "ember: %s\n", why.c_str());
  std::fflush(stderr);
  if (the_transport != nullptr) transport().halt(std::chrono::seconds(2));
  std::thread([] {
    std::this_thread::sleep_for(kAbortPatience);
    std::fprintf(stderr, "ember: MPI_Abort did not end the job within %lld s; exiting\n",
                 static_cast<long long>(kAbortPatience.count()));
    std::_Exit(1);
  }).detach();
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; this is for the compiler
}

/// This rank's report: host, CPUs, memory, GPU device ids.
std::string describe_self() {
  MachineResources m = detect_machine();
  process::MessageWriter out;
  out.begin(process::Op::Hello);
  out.put_string(host_name());
  out.put(m.total.cpus);
  out.put(static_cast<int64_t>(m.total.memory_bytes));
  out.put(static_cast<uint32_t>(m.gpu_ids.size()));
  for (int id : m.gpu_ids) out.put(static_cast<int32_t>(id));
  return out.bytes();
}

/// Every rank's report, on rank 0 (empty elsewhere). Point to point rather than a gather: a
/// collective would wait without end for a rank stopped before it reported, where rank 0 can
/// give up after the limit and say which ranks never reported.
std::vector<RankResources> gather_resources(int rank, int ranks, RankTimeout timeout) {
  const std::string mine = describe_self();
  if (rank != 0) {
    // Small enough to be sent eagerly: it returns without waiting for rank 0.
    MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, 0, kTagHello, MPI_COMM_WORLD);
    return {};
  }
  std::vector<std::optional<std::string>> reports(static_cast<size_t>(ranks));
  reports[0] = mine;
  int missing = ranks - 1;
  const auto deadline = std::chrono::steady_clock::now() + timeout.limit();
  while (missing > 0) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagHello, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::string report(static_cast<size_t>(count), '\0');
      MPI_Recv(report.data(), count, MPI_BYTE, status.MPI_SOURCE, kTagHello, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      reports[static_cast<size_t>(status.MPI_SOURCE)] = std::move(report);
      --missing;
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::string which;
      for (int r = 1; r < ranks; ++r)
        if (!reports[static_cast<size_t>(r)])
          which += (which.empty() ? "" : ", ") + std::to_string(r);
      abort_job("rank(s) " + which + " sent nothing at start-up for " +
                seconds_text(timeout.limit_seconds) +
                " s (EMBER_RANK_TIMEOUT_S): stopped, hung or cut off; ending the job");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<RankResources> out;
  for (int r = 0; r < ranks; ++r) {
    process::MessageReader in(*reports[static_cast<size_t>(r)]);
    RankResources rr;
    rr.rank = r;
    rr.host = std::string(in.get_string());
    rr.total.cpus = in.get<double>();
    rr.total.memory_bytes = in.get<int64_t>();
    const auto gpus = in.get<uint32_t>();
    for (uint32_t i = 0; i < gpus; ++i) rr.gpu_ids.push_back(in.get<int32_t>());
    rr.total.gpus = static_cast<int>(gpus);
    out.push_back(std::move(rr));
  }
  return out;
}

/// Rank 0's watch: a worker rank silent past the limit is lost. Its waits end with the error
/// (the running query fails and leaves its output as it was), later queries that need it fail
/// at once, and the job ends at the program's exit (shutdown_cluster).
void watch_worker_ranks(int ranks, const std::vector<RankResources>& members, RankTimeout timeout) {
  std::vector<int> workers;
  std::vector<std::string> hosts;
  for (const RankResources& m : members) hosts.push_back(m.host);
  for (int r = 1; r < ranks; ++r) workers.push_back(r);
  watch().start(ranks, workers, timeout, 1, send_heartbeat, [hosts](int rank, double limit) {
    const std::string why =
        "rank " + std::to_string(rank) + " (host " + hosts.at(static_cast<size_t>(rank)) +
        ") sent nothing for " + seconds_text(limit) +
        " s (EMBER_RANK_TIMEOUT_S): it is stopped, hung or cut off; the query was stopped and its "
        "output left untouched, and the job ends when this program exits";
    std::fprintf(stderr, "ember: %s\n", why.c_str());
    {
      std::lock_guard lock(launch_state().mu);
      if (launch_state().lost.empty()) launch_state().lost = why;
    }
    launch_state().changed.notify_all();
    lose_rank(rank, why);
  });
}

/// Rank 0's exit (atexit): tells every rank to stop serving and waits until each has said
/// goodbye, then leaves MPI. MPI_Finalize waits for every rank, so a rank that stops answering
/// must be found before it, while the watch still looks: then the job is aborted instead, as it
/// is when a rank was lost earlier.
void shutdown_cluster() {
  {
    std::lock_guard lock(launch_state().mu);
    launch_state().runtime.reset();
  }
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);  // no other thread calls MPI: read before the loop
  for (int r = 1; r < ranks; ++r) transport().send(r, kTagShutdown, std::string_view());
  std::string lost;
  {
    // Bounded: a worker rank either says goodbye or falls silent, and the watch reports a
    // silence within the limit.
    LaunchState& s = launch_state();
    std::unique_lock lock(s.mu);
    s.changed.wait(lock, [&] { return s.goodbyes >= ranks - 1 || !s.lost.empty(); });
    lost = s.lost;
  }
  if (!lost.empty()) abort_job(lost);
  watch().stop();
  transport().stop();
  MPI_Finalize();
}

[[noreturn]] void serve_rank(int self, int ranks, RankTimeout timeout) {
  open_reply_routing();  // pool calls' replies and their waits, before the transport
  // Before the transport: its thread reports every arrival to the watch.
  watch().start(ranks, {0}, timeout, kWorkerPatience, send_heartbeat, [self](int, double limit) {
    // From the watch thread while the transport's may be inside MPI: MPI_Abort is the one
    // call made out of turn, and only to end the process.
    abort_job("rank " + std::to_string(self) + ": rank 0 sent nothing for " +
              seconds_text(limit * kWorkerPatience) + " s (" + seconds_text(kWorkerPatience) +
              " x EMBER_RANK_TIMEOUT_S): it is stopped, hung or cut off; ending the job");
  });
  // Never destroyed: the process ends in _Exit below, with the transport's thread stopped.
  auto* server = new RankServer(transport());
  transport().start([server](Incoming message) {
    if (watch().take(message)) return;
    server->handle(std::move(message));
  });
  server->run();
  // Rank 0 stops its heartbeats once every rank has said goodbye: stop watching first.
  watch().stop();
  transport().send(0, kTagShutdown, std::string_view());
  transport().stop();
  MPI_Finalize();
  std::fflush(nullptr);
  std::_Exit(0);
}

#endif  // EMBER_HAVE_MPI

}  // namespace

bool built_with_mpi() {
#if EMBER_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void enter_from_main(int argc, char** argv) {
  {
    std::lock_guard lock(launch_state().mu);
    if (launch_state().initialised) return;
    launch_state().initialised = true;
  }
  const auto launched = launcher_rank();
  if (!launched || launched->second <= 1) return;  // one process: the local executor, as ever
#if EMBER_HAVE_MPI
  // On every rank, before MPI: a bad value fails ember::init everywhere alike.
  const RankTimeout timeout = rank_timeout_from_environment();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    std::fprintf(stderr, "ember: this MPI library does not support MPI_THREAD_SERIALIZED\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  the_transport = new MpiTransport(rank, ranks);
  std::vector<RankResources> members = gather_resources(rank, ranks, timeout);
  if (rank != 0) serve_rank(rank, ranks, timeout);
  ClusterInfo info;
  info.ranks = ranks;
  for (const RankResources& m : members) {
    // Rank 0's resources are what its own pool admits into (the same detection).
    info.members.push_back(
        {m.rank, m.host, m.rank == 0 ? ResourcePool::for_run({})->total() : m.total});
  }
  {
    std::lock_guard lock(launch_state().mu);
    launch_state().info = std::move(info);
  }
  open_reply_routing();
  watch_worker_ranks(ranks, members, timeout);  // before the transport, as on the other ranks
  {
    std::lock_guard lock(launch_state().mu);
    launch_state().runtime = std::make_shared<TransportRuntime>(transport(), std::move(members));
  }
  transport().start([](Incoming message) {
    if (watch().take(message)) return;
    if (message.tag == kTagShutdown) {  // a worker rank's goodbye at exit
      watch().unwatch(message.source);
      {
        std::lock_guard lock(launch_state().mu);
        ++launch_state().goodbyes;
      }
      launch_state().changed.notify_all();
    } else {
      serve_rank_zero(transport(), std::move(message));
    }
  });
  std::atexit(shutdown_cluster);
#else
  (void)argc;
  (void)argv;
  throw InvalidArgument(
      "this program runs as rank " + std::to_string(launched->first) + " of " +
      std::to_string(launched->second) +
      " under mpirun, but ember was built without MPI (EMBER_MPI=OFF, or Open MPI was not "
      "found: install openmpi-bin and libopenmpi-dev and rebuild); run it without mpirun");
#endif
}

std::shared_ptr<ClusterRuntime> runtime() {
  std::lock_guard lock(launch_state().mu);
  return launch_state().runtime;
}

ClusterInfo cluster_info() {
  {
    std::lock_guard lock(launch_state().mu);
    if (launch_state().info) return *launch_state().info;
  }
  ClusterInfo one;
  one.members.push_back({0, host_name(), ResourcePool::for_run({})->total()});
  return one;
}

void require_init_under_launcher() {
  {
    std::lock_guard lock(launch_state().mu);
    if (launch_state().initialised) return;
  }
  const auto launched = launcher_rank();
  if (!launched || launched->second <= 1) return;
  throw InvalidArgument(
      "this program runs as rank " + std::to_string(launched->first) + " of " +
      std::to_string(launched->second) +
      " under mpirun, but ember::init(argc, argv) was never called: call it first thing in "
      "main(), so that rank 0 runs the program and the other ranks serve its actors (without "
      "it every rank runs the whole program on its own)");
}

}  // namespace ember::dist
