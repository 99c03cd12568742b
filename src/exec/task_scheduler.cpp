// Worker threads and the idle/queued/running/notified state machine of a task.
#include "exec/task_scheduler.h"

namespace ember {

TaskScheduler::TaskScheduler(int threads, std::function<void(Task*)> on_done)
    : on_done_(std::move(on_done)) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { worker(); });
}

TaskScheduler::~TaskScheduler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void TaskScheduler::push(Task* task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(task);
  }
  cv_.notify_one();
}

void TaskScheduler::wake(Task* task) {
  int s = task->state_.load(std::memory_order_acquire);
  while (true) {
    if (s == Task::kIdle) {
      if (task->state_.compare_exchange_weak(s, Task::kQueued, std::memory_order_acq_rel)) {
        push(task);
        return;
      }
    } else if (s == Task::kRunning) {
      if (task->state_.compare_exchange_weak(s, Task::kNotified, std::memory_order_acq_rel)) return;
    } else {
      return;  // already queued, already notified, or done
    }
  }
}

void TaskScheduler::worker() {
  while (true) {
    Task* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      task = queue_.front();
      queue_.pop_front();
    }
    task->state_.store(Task::kRunning, std::memory_order_release);
    while (true) {
      Task::Step step = task->run();
      if (step == Task::Step::Done) {
        task->state_.store(Task::kDone, std::memory_order_release);
        on_done_(task);
        break;
      }
      if (step == Task::Step::Yield) {
        task->state_.store(Task::kQueued, std::memory_order_release);
        push(task);
        break;
      }
      int expected = Task::kRunning;
      if (task->state_.compare_exchange_strong(expected, Task::kIdle, std::memory_order_acq_rel))
        break;
      // Woken while running: something changed, run again.
      task->state_.store(Task::kRunning, std::memory_order_release);
    }
  }
}

}  // namespace ember
