// Common benchmark flags, parsed with CLI11.
#include "bench_options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>

namespace ember::bench {

void BenchOptions::add_to(CLI::App& app) {
  if (const char* env = std::getenv("EMBER_BENCH_JSON")) json_path = env;
  app.add_flag("--quick", quick, "smaller sizes (a quick check, not the quoted figures)");
  app.add_option("--reps", reps, "repetitions (default depends on --quick)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--json", json_path, "append each result row as a JSON line to this file")
      ->envname("EMBER_BENCH_JSON");
}

int BenchOptions::repetitions(int full, int quick_reps) const {
  if (reps > 0) return reps;
  return quick ? quick_reps : full;
}

}  // namespace ember::bench
