// Wall-clock timing for benchmarks.
#pragma once

#include <sys/resource.h>

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

/// CPU seconds (user + system) this process has used so far, all threads. Unlike wall time it
/// barely moves when other processes crowd the machine, so it separates work from waiting.
inline double process_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

/// Wall and CPU seconds of one run of some work.
struct RunTime {
  double wall = 0, cpu = 0;
};

/// Wall and process CPU seconds `work` takes to run once.
template <class F>
RunTime time_run(F&& work) {
  const double cpu0 = process_cpu_seconds();
  Stopwatch w;
  work();
  return RunTime{w.seconds(), process_cpu_seconds() - cpu0};
}

/// Seconds `work` takes to run once.
template <class F>
double time_seconds(F&& work) {
  Stopwatch w;
  work();
  return w.seconds();
}

}  // namespace ember::bench
