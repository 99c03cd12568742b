// Starting, watching and reaping one worker process: the driver's own binary re-executed in
// worker mode, holding one end of a control socket and writing to pipes the driver relays.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "udf/process/control_channel.h"
#include "udf/process/output_relay.h"

namespace ember::process {

/// Names the descriptor number of a worker's control socket; its presence makes ember::init
/// serve instead of returning.
inline constexpr char kWorkerFdVariable[] = "EMBER_WORKER_FD";
/// The descriptor number the control socket has in a worker.
inline constexpr int kWorkerFd = 3;

/// What to start: the driver's command line and the variables to set in the worker's
/// environment (on top of the driver's, before exec, so they are there for static initialisers).
struct WorkerLaunch {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string output_prefix;  ///< e.g. "[speller #0] "
};

/// One worker process. Owned and used by one thread at a time (its actor's thread).
class WorkerProcess {
 public:
  /// Forks and execs /proc/self/exe. The worker dies with the driver (PR_SET_PDEATHSIG, bound
  /// to the calling thread: call from a thread that outlives the worker). Throws UdfError when
  /// the system refuses.
  static std::unique_ptr<WorkerProcess> spawn(const WorkerLaunch& launch);
  /// Kills and reaps the worker if that has not happened yet.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  ControlChannel& channel() { return channel_; }
  /// Waits up to `grace` for the worker to exit, then SIGKILLs it; reaps it (no zombie) and
  /// drains its output. Returns the wait status (nullopt if it could not be collected).
  /// Idempotent.
  std::optional<int> reap(std::chrono::milliseconds grace);

 private:
  WorkerProcess() = default;
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::optional<int> status_;
  ControlChannel channel_;
  std::unique_ptr<OutputRelay> relay_;
};

/// How a worker ended, for error messages: "was killed by signal 6 (SIGABRT)",
/// "exited with status 3".
std::string describe_exit(std::optional<int> wait_status);

}  // namespace ember::process
