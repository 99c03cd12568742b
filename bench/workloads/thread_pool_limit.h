// The hand-written baseline: N threads, each with its own model, pulling tasks off a counter.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

/// Runs tasks 0..tasks-1 on `threads` threads. With `per_task_model` false each thread builds
/// one model (`make()`) and reuses it for every task it takes: the physical limit of the
/// actor-pool idea. With it true, every task builds a fresh model: the naive
/// construct-per-partition strategy. `work(model, task)` does one task. The first exception
/// stops the other threads after their current task and is rethrown.
template <class Make, class Work>
void run_thread_pool(int threads, int tasks, bool per_task_model, Make&& make, Work&& work) {
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mu;
  auto body = [&] {
    try {
      auto model = per_task_model ? decltype(make())() : make();
      for (int t; !failed && (t = next++) < tasks;) {
        if (per_task_model) model = make();
        work(*model, t);
      }
    } catch (...) {
      std::lock_guard<std::mutex> l(error_mu);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(body);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace bench
