// The thread that forks an actor's worker processes when several threads call that actor: a
// worker dies with the thread that forked it (PR_SET_PDEATHSIG), so that must be a thread that
// outlives the worker, not whichever call lane happened to need one.
#pragma once

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "udf/process/worker_process.h"

namespace ember::process {

/// Runs WorkerProcess::spawn on a thread of its own, one request at a time.
class SpawnThread {
 public:
  SpawnThread();
  /// Joins the thread; every worker it forked must have been reaped by then.
  ~SpawnThread();
  SpawnThread(const SpawnThread&) = delete;
  SpawnThread& operator=(const SpawnThread&) = delete;

  /// WorkerProcess::spawn(launch), run on this object's thread; any thread may ask.
  std::unique_ptr<WorkerProcess> spawn(const WorkerLaunch& launch);

 private:
  void loop();

  std::mutex requests_mu_;  ///< one request at a time
  std::mutex mu_;
  std::condition_variable cv_;
  const WorkerLaunch* request_ = nullptr;   // guarded by mu_
  bool answered_ = false;                   // guarded by mu_
  bool exit_ = false;                       // guarded by mu_
  std::unique_ptr<WorkerProcess> spawned_;  // guarded by mu_
  std::exception_ptr error_;                // guarded by mu_
  std::thread thread_;                      // last: starts once the rest is set up
};

}  // namespace ember::process
