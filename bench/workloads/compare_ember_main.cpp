// Runs one workload on ember and prints its report (one JSON line).
//   compare_ember --workload NAME [--input PATH] [--out DIR] [--repeat N] [--workers N] ...
#include <cstdio>
#include <exception>

#include "ember_workloads.h"
#include "workload_cli.h"

int main(int argc, char** argv) {
  ember::init(argc, argv);
  bench::WorkloadOptions o;
  CLI::App app{"ember's side of bench/compare: one workload, timed."};
  bench::add_workload_options(app, o);
  CLI11_PARSE(app, argc, argv);
  try {
    bench::RunReport r;
    if (o.workload == "init-heavy")
      r = bench::ember_init_heavy(o);
    else if (o.workload == "cpu-heavy")
      r = bench::ember_cpu_heavy(o);
    else if (o.workload == "spellcheck")
      r = bench::ember_spellcheck(o);
    else if (o.workload == "pipeline")
      r = bench::ember_pipeline(o);
    else
      r = bench::ember_pipeline_noudf(o);
    r.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_ember: %s\n", e.what());
    return 1;
  }
  return 0;
}
