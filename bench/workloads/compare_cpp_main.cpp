// Runs one workload hand-written in C++ and prints its report (one JSON line).
//   compare_cpp --strategy limit|per-partition --workload NAME [--input PATH] ...
#include <cstdio>
#include <exception>

#include "cpp_workloads.h"
#include "workload_cli.h"

int main(int argc, char** argv) {
  bench::WorkloadOptions o;
  std::string strategy = "limit";
  CLI::App app{"Hand-written C++ baselines of bench/compare: one workload, timed."};
  bench::add_workload_options(app, o);
  app.add_option("--strategy", strategy, "limit: one model per thread; per-partition: one per task")
      ->check(CLI::IsMember({"limit", "per-partition"}));
  CLI11_PARSE(app, argc, argv);
  const bench::Strategy s =
      strategy == "limit" ? bench::Strategy::Limit : bench::Strategy::PerPartition;
  try {
    bench::RunReport r;
    if (o.workload == "init-heavy")
      r = bench::cpp_init_heavy(o, s);
    else if (o.workload == "cpu-heavy")
      r = bench::cpp_cpu_heavy(o, s);
    else if (o.workload == "spellcheck")
      r = bench::cpp_spellcheck(o, s);
    else if (o.workload == "pipeline")
      r = bench::cpp_pipeline(o, s);
    else
      throw std::invalid_argument("no C++ baseline for " + o.workload +
                                  " (DuckDB is its baseline)");
    r.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_cpp: %s\n", e.what());
    return 1;
  }
  return 0;
}
