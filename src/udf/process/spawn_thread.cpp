// SpawnThread: forks workers on one long-lived thread, answering each request in turn.
#include "udf/process/spawn_thread.h"

#include <utility>

namespace ember::process {

SpawnThread::SpawnThread() : thread_([this] { loop(); }) {}

SpawnThread::~SpawnThread() {
  {
    std::lock_guard lock(mu_);
    exit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::unique_ptr<WorkerProcess> SpawnThread::spawn(const WorkerLaunch& launch) {
  std::lock_guard one(requests_mu_);
  std::unique_lock lock(mu_);
  request_ = &launch;
  answered_ = false;
  cv_.notify_all();
  cv_.wait(lock, [&] { return answered_; });
  request_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return std::move(spawned_);
}

void SpawnThread::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return exit_ || (request_ != nullptr && !answered_); });
    if (exit_) return;
    const WorkerLaunch& launch = *request_;
    lock.unlock();
    std::unique_ptr<WorkerProcess> spawned;
    std::exception_ptr error;
    try {
      spawned = WorkerProcess::spawn(launch);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    spawned_ = std::move(spawned);
    error_ = error;
    answered_ = true;
    cv_.notify_all();
  }
}

}  // namespace ember::process
