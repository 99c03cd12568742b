// Wall-clock timing for benchmarks.
#pragma once

#include <chrono>

namespace ember::bench {

/// Monotonic wall clock started at construction.
class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void restart() { start_ = Clock::now(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

/// Seconds `work` takes to run once.
template <class F>
double time_seconds(F&& work) {
  Stopwatch w;
  work();
  return w.seconds();
}

}  // namespace ember::bench
