// One started worker process as its actor's calls share it: the process, a control channel
// per call lane, and how it ended; and starting one (spawn, Hello, Init, lanes).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ember/udf.h"
#include "udf/process/control_channel.h"
#include "udf/process/shared_region.h"
#include "udf/process/spawn_thread.h"
#include "udf/process/worker_process.h"
#include "udf/udf_spec.h"

namespace ember::process {

/// A worker and what its calls learn about it. Destroying it kills and reaps the process (if
/// that has not happened yet); the process actor guards the mutable fields with its lock.
struct LiveWorker {
  uint64_t serial = 0;  ///< 1, 2, ... per actor: which worker a lane's regions belong to
  std::unique_ptr<WorkerProcess> process;
  std::vector<std::unique_ptr<ControlChannel>> extra_lanes;  ///< lanes 1..k-1
  /// Lane 0's first result region, from Ready, until lane 0's first call takes it.
  std::shared_ptr<SharedMapping> first_result_map;
  // Guarded by the actor's lock:
  bool gone = false;  ///< died or was killed: takes no more calls
  int in_flight = 0;  ///< calls sent and not answered
  int in_flight_at_end = 0;
  int late_lane = -1;  ///< the lane whose call ran past its deadline, when that killed it

  ControlChannel& channel(int lane) {
    return lane == 0 ? process->channel() : *extra_lanes[static_cast<size_t>(lane) - 1];
  }
  /// "worker pid N was killed by signal 6 (SIGABRT)": reaps it the first time (waiting up to
  /// a few seconds for a process that is exiting). Only once it is no longer ours to kill.
  std::string describe_end();

 private:
  std::mutex end_mu_;
  std::optional<std::string> end_;  // guarded by end_mu_
};

/// What starting a worker for an actor needs.
struct WorkerStart {
  const UdfSpec* spec = nullptr;
  const ActorContext* ctx = nullptr;
  std::string who;  ///< "udf 'speller' actor #1"
  int lanes = 1;    ///< max_concurrency
  /// Forks the worker when set (see spawn_thread.h); else the calling thread does.
  SpawnThread* spawner = nullptr;
  /// Told the pid as soon as the process exists (abort() may then kill it), and told to
  /// forget it before a failed start reaps it.
  std::function<void(pid_t)> spawned, forget;
};

/// Starts a worker, constructs the UDF in it and opens its call lanes. Throws UdfError saying
/// why it could not (the process is then reaped).
std::shared_ptr<LiveWorker> start_worker(const WorkerStart& start, uint64_t serial);

}  // namespace ember::process
