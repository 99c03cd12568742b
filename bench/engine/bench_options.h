// Command-line options every engine benchmark accepts.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ember::bench {

/// --quick (smaller sizes), --reps N, --json PATH (or EMBER_BENCH_JSON): JSON lines appended.
struct BenchOptions {
  bool quick = false;
  int reps = 0;  ///< 0 = the benchmark's default for the chosen size
  std::string json_path;

  /// Registers the common flags on `app`; the caller adds its own and parses.
  void add_to(CLI::App& app);
  /// Repetitions to run: --reps when given, else `full` or `quick`.
  int repetitions(int full, int quick_reps) const;
  /// `full` or `quick_size`, by --quick.
  template <class T>
  T size(T full, T quick_size) const {
    return quick ? quick_size : full;
  }
};

}  // namespace ember::bench
