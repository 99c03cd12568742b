// A fixed pool of worker threads running resumable tasks. A task that cannot progress returns
// Blocked instead of parking its thread, and is woken (re-queued) by whoever unblocks it.
// A worker that runs out of tasks spins a short while before it sleeps (one worker at a time):
// waking a sleeping thread costs its waker a system call and, on a virtual machine, an
// interrupt to another CPU, which an actor finishing a batch every ~100 us paid per batch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ember {

/// A resumable unit of work. run() is never called concurrently for one task.
class Task {
 public:
  enum class Step { Blocked, Yield, Done };
  virtual ~Task() = default;
  /// Does some work. Blocked: wait for wake(); Yield: requeue at the back; Done: never again.
  virtual Step run() = 0;

 private:
  friend class TaskScheduler;
  enum State : int { kIdle, kQueued, kRunning, kNotified, kDone };
  std::atomic<int> state_{kIdle};
};

class TaskScheduler {
 public:
  /// How long an idle worker looks for a new task before it sleeps: EMBER_SCHEDULER_SPIN_US
  /// (0 turns spinning off), else 200 us on a machine with more than one CPU, else 0. A value
  /// that is not 0 to 1,000,000 microseconds is an InvalidArgument (the query fails at start).
  static std::chrono::nanoseconds spin_time();

  /// `on_done` runs on a worker thread after a task returns Done. An idle worker spins for
  /// `spin` before it sleeps.
  TaskScheduler(int threads, std::function<void(Task*)> on_done,
                std::chrono::nanoseconds spin = spin_time());
  ~TaskScheduler();  ///< joins the threads; tasks still queued are dropped
  TaskScheduler(const TaskScheduler&) = delete;
  TaskScheduler& operator=(const TaskScheduler&) = delete;

  /// Makes `task` run soon: queues an idle task, or marks a running one to run again.
  /// Thread-safe; cheap when the task is already queued.
  void wake(Task* task);
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  void worker();
  void push(Task* task);
  /// Spins until a task is queued or `spin_` has passed, unless another worker spins already.
  /// Never takes mu_.
  void spin_for_work();
  std::function<void(Task*)> on_done_;
  const std::chrono::nanoseconds spin_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task*> queue_;
  std::atomic<int> queued_{0};         // queue_.size(), readable without mu_
  std::atomic<bool> spinning_{false};  // a worker spins: push need not wake a sleeping one
  std::atomic<bool> stopping_{false};  // the destructor ends a spin at once
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ember
