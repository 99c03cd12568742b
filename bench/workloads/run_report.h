// What every benchmark runner prints: one JSON line with its timings and its result check.
#pragma once

#include <string>
#include <vector>

namespace bench {

/// One runner invocation: `times` are wall seconds of the repeated runs; `check` is a JSON
/// object of named numbers that every system must reproduce (see bench/compare); `notes` says
/// anything a reader of the numbers must know (e.g. a resource override).
struct RunReport {
  std::string system;
  std::string workload;
  std::vector<double> times;
  std::string check = "{}";
  std::string notes;
  /// Prints the report as one JSON line on stdout.
  void print() const;
};

/// Runs `body` `repeat` times, returning the wall seconds of each run. `setup` runs before each
/// run, untimed (e.g. removing the previous run's output).
template <class F, class S = void (*)()>
std::vector<double> time_runs(
    int repeat, F&& body, S&& setup = [] {});

}  // namespace bench

#include <chrono>

template <class F, class S>
std::vector<double> bench::time_runs(int repeat, F&& body, S&& setup) {
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    setup();
    auto t0 = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return times;
}
