// A fixed pool of worker threads running resumable tasks. A task that cannot progress returns
// Blocked instead of parking its thread, and is woken (re-queued) by whoever unblocks it.
#pragma once

#include <atomic>
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
  /// `on_done` runs on a worker thread after a task returns Done.
  TaskScheduler(int threads, std::function<void(Task*)> on_done);
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
  std::function<void(Task*)> on_done_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task*> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ember
