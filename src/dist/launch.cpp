// ember::init under mpirun: MPI start-up, the resource exchange, and the split between the
// driver (rank 0) and the serving ranks; the driver's exit ends every rank.
#include "dist/launch.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "dist/cluster_placement.h"
#include "dist/cluster_spreader.h"
#include "dist/pool_service.h"
#include "dist/rank_server.h"
#include "dist/remote_actor.h"
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

/// Every rank's report, on rank 0 (empty elsewhere). Collective.
std::vector<RankResources> gather_resources(int rank, int ranks) {
  const std::string mine = describe_self();
  int size = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
      offsets[static_cast<size_t>(r)] = total;
      total += sizes[static_cast<size_t>(r)];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  std::vector<RankResources> out;
  if (rank != 0) return out;
  for (int r = 0; r < ranks; ++r) {
    const auto ur = static_cast<size_t>(r);
    process::MessageReader in(std::string_view(all).substr(static_cast<size_t>(offsets[ur]),
                                                           static_cast<size_t>(sizes[ur])));
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

/// Rank 0's exit (atexit): tells every rank to stop serving, then leaves MPI.
void shutdown_cluster() {
  install_actor_placer(nullptr);
  install_partition_spreader(nullptr);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);  // no other thread calls MPI: read before the loop
  for (int r = 1; r < ranks; ++r) Transport::send(r, kTagShutdown, std::string_view());
  Transport::stop();
  MPI_Finalize();
}

[[noreturn]] void serve_rank() {
  open_reply_routing();  // pool calls' replies and their waits, before the transport
  Transport::start(RankServer::handle);
  RankServer::run();
  Transport::stop();
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
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    std::fprintf(stderr, "ember: this MPI library does not support MPI_THREAD_SERIALIZED\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<RankResources> members = gather_resources(rank, ranks);
  if (rank != 0) serve_rank();
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
  install_actor_placer(std::make_shared<ClusterPlacer>(std::move(members), make_remote_actor));
  install_partition_spreader(std::make_shared<ClusterSpreader>(ranks));
  Transport::start([](Incoming message) {
    if (message.tag == kTagPoolCall)
      serve_pool_call(std::move(message));
    else
      route_reply(std::move(message));
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
