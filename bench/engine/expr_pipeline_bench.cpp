// Expression pipeline: range -> with_column(id*3+1) -> where(x % 7 == 0) -> agg(sum(x)), ember
// against a hand-written loop computing the same sum on the same number of threads.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <thread>
#include <vector>

#include "bench_options.h"
#include "bench_report.h"
#include "ember/ember.h"
#include "stopwatch.h"

namespace {

using namespace ember;
using ember::bench::BenchReport;
using ember::bench::BenchRow;
using ember::bench::Samples;
using ember::bench::Target;

constexpr int kThreads = 2;

/// Sum of x = id*3+1 over ids in [0, n) where x % 7 == 0: the query evaluated through ember.
int64_t ember_sum(int64_t n, int partitions) {
  RunOptions options;
  options.threads = kThreads;
  Table t = range(n, partitions)
                .with_column("x", col("id") * lit(int64_t{3}) + lit(int64_t{1}))
                .where(col("x") % lit(int64_t{7}) == lit(int64_t{0}))
                .agg({col("x").sum()})
                .collect(options);
  return t.column("x").value<int64_t>(0);
}

/// The physical limit over ids [lo, hi): no intermediate columns at all.
__attribute__((noinline)) int64_t range_sum(int64_t lo, int64_t hi) {
  int64_t sum = 0;
  for (int64_t id = lo; id < hi; ++id) {
    const int64_t x = id * 3 + 1;
    if (x % 7 == 0) sum += x;
  }
  return sum;
}

// The same loop built for the instruction sets ember's kernels are built for (AVX-512, AVX2 or
// plain x86-64, picked at load time), so the comparison can also be read ISA for ISA. A cloned
// function is called through its resolver and so never inlined; clang rejects noinline beside
// target_clones, so noinline is spelled out only where there are no clones.
#if defined(__x86_64__) && defined(__ELF__)
#define EMBER_BENCH_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMBER_BENCH_CLONES __attribute__((noinline))
#endif
EMBER_BENCH_CLONES int64_t range_sum_best_isa(int64_t lo, int64_t hi) {
  int64_t sum = 0;
  for (int64_t id = lo; id < hi; ++id) {
    const int64_t x = id * 3 + 1;
    if (x % 7 == 0) sum += x;
  }
  return sum;
}

/// One contiguous id range per thread.
int64_t loop_sum(int64_t n, int threads, int64_t (*body)(int64_t, int64_t)) {
  std::vector<int64_t> partial(static_cast<size_t>(threads), 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&partial, n, threads, t, body] {
      partial[static_cast<size_t>(t)] = body(n * t / threads, n * (t + 1) / threads);
    });
  }
  for (std::thread& w : workers) w.join();
  int64_t sum = 0;
  for (int64_t s : partial) sum += s;
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions options;
  int partitions = 8;
  CLI::App app{"ember expression pipeline vs a hand-written loop"};
  options.add_to(app);
  app.add_option("--partitions", partitions, "range() partitions")->check(CLI::Range(1, 4096));
  CLI11_PARSE(app, argc, argv);

  const int64_t n = options.size<int64_t>(100'000'000, 10'000'000);
  const int reps = options.repetitions(5, 3);
  BenchReport report("expr_pipeline", options);

  ember_sum(n / 100, partitions);  // warm-up: first-touch allocations, thread creation
  Samples ember_s, loop_s, ember_cpu, loop_cpu, isa_s;
  for (int r = 0; r < reps; ++r) {
    // Interleaved, so a burst of load from other processes hits both sides alike.
    int64_t e = 0, l = 0, v = 0;
    const auto et = ember::bench::time_run([&] { e = ember_sum(n, partitions); });
    const auto lt = ember::bench::time_run([&] { l = loop_sum(n, kThreads, range_sum); });
    const auto vt = ember::bench::time_run([&] { v = loop_sum(n, kThreads, range_sum_best_isa); });
    ember_s.add(et.wall);
    ember_cpu.add(et.cpu);
    loop_s.add(lt.wall);
    loop_cpu.add(lt.cpu);
    isa_s.add(vt.wall);
    if (e != l || v != l)
      report.fail(fmt::format("rep {}: ember sum {}, loop sums {} and {}", r, e, l, v));
  }
  report.add(
      BenchRow{fmt::format("range({}M,{})->x=id*3+1->x%7==0->sum", n / 1'000'000, partitions), "s",
               ember_s, loop_s, Target::ratio_at_most(1.5)});
  const double mrows = static_cast<double>(n) / 1e6;
  report.add(BenchRow{"same, as throughput", "Mrow/s", ember_s.rates(mrows), loop_s.rates(mrows),
                      std::nullopt});
  report.add(
      BenchRow{"same, CPU time (user+sys, all threads)", "s", ember_cpu, loop_cpu, std::nullopt});
  report.add(
      BenchRow{"same, loop built for this CPU's ISA too", "s", ember_s, isa_s, std::nullopt});
  report.note(
      fmt::format("baseline: std::thread loop, {} threads, one contiguous id range each, "
                  "built like the rest of the benchmark (plain x86-64); ember: "
                  "RunOptions.threads = {}, agg({{col(\"x\").sum()}}); ember's kernels "
                  "pick AVX-512/AVX2/plain at load time, so the last row gives the loop "
                  "the same choice",
                  kThreads, kThreads));
  report.note(
      fmt::format("{} reps interleaved; sums checked equal on every rep; CPU time is "
                  "the steadier figure when other processes load the machine",
                  reps));
  return report.finish();
}
