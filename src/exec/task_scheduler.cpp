// Worker threads and the idle/queued/running/notified state machine of a task.
#include "exec/task_scheduler.h"

#include <cstdlib>
#include <string>
#include <thread>

#include "ember/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ember {

TaskScheduler::TaskScheduler(int threads, std::function<void(Task*)> on_done,
                             std::chrono::nanoseconds spin)
    : on_done_(std::move(on_done)), spin_(spin) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { worker(); });
}

TaskScheduler::~TaskScheduler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stopping_.store(true);
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

std::chrono::nanoseconds TaskScheduler::spin_time() {
  static const std::chrono::nanoseconds spin = [] {
    if (const char* env = std::getenv("EMBER_SCHEDULER_SPIN_US"); env && *env) {
      char* end = nullptr;
      const long long us = std::strtoll(env, &end, 10);
      if (*end != '\0' || us < 0 || us > 1'000'000)
        throw InvalidArgument(
            std::string("EMBER_SCHEDULER_SPIN_US must be a whole number of microseconds from 0 "
                        "to 1000000, got '") +
            env + "'");
      return std::chrono::nanoseconds(us * 1000);
    }
    return std::thread::hardware_concurrency() > 1 ? std::chrono::nanoseconds(200'000)
                                                   : std::chrono::nanoseconds(0);
  }();
  return spin;
}

void TaskScheduler::push(Task* task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(task);
    queued_.fetch_add(1);
  }
  // A spinning worker takes it (it checks the queue under mu_ before it sleeps, after it stops
  // spinning); waking a sleeping one as well would cost what the spinning saves.
  if (!spinning_.load()) cv_.notify_one();
}

void TaskScheduler::spin_for_work() {
  if (spin_.count() == 0 || queued_.load() > 0) return;
  bool expected = false;
  if (!spinning_.compare_exchange_strong(expected, true)) return;
  const auto until = std::chrono::steady_clock::now() + spin_;
  while (queued_.load() == 0 && !stopping_.load() && std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 16; ++i) cpu_relax();
  }
  spinning_.store(false);
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
    spin_for_work();
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      task = queue_.front();
      queue_.pop_front();
      queued_.fetch_sub(1);
      // Tasks pushed while this worker spun woke no one: the next sleeper takes the rest.
      if (!queue_.empty()) cv_.notify_one();
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
