// Expression pipeline: range -> with_column(id*3+1) -> where(x % 7 == 0) -> sum(x), ember
// against a hand-written loop computing the same sum on the same number of threads.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
                .select({col("x")})
                .collect(options);
  // ember has no aggregate operator yet: the sum runs here, and is part of the timed work.
  int64_t sum = 0;
  for (const Batch& b : t.batches()) {
    const Column& x = b.column(0);
    const int64_t* v = x.values<int64_t>();
    for (int64_t i = 0; i < x.size(); ++i) sum += v[i];
  }
  return sum;
}

/// The physical limit: one contiguous id range per thread, no intermediate columns.
int64_t loop_sum(int64_t n, int threads) {
  std::vector<int64_t> partial(static_cast<size_t>(threads), 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&partial, n, threads, t] {
      const int64_t lo = n * t / threads, hi = n * (t + 1) / threads;
      int64_t sum = 0;
      for (int64_t id = lo; id < hi; ++id) {
        const int64_t x = id * 3 + 1;
        if (x % 7 == 0) sum += x;
      }
      partial[static_cast<size_t>(t)] = sum;
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
  Samples ember_s, loop_s, ember_cpu, loop_cpu;
  for (int r = 0; r < reps; ++r) {
    // Interleaved, so a burst of load from other processes hits both sides alike.
    int64_t e = 0, l = 0;
    const auto et = ember::bench::time_run([&] { e = ember_sum(n, partitions); });
    const auto lt = ember::bench::time_run([&] { l = loop_sum(n, kThreads); });
    ember_s.add(et.wall);
    ember_cpu.add(et.cpu);
    loop_s.add(lt.wall);
    loop_cpu.add(lt.cpu);
    if (e != l) report.fail(fmt::format("rep {}: ember sum {} != loop sum {}", r, e, l));
  }
  report.add(BenchRow{fmt::format("range({}M,{})->x=id*3+1->x%7==0->sum", n / 1'000'000, partitions),
                      "s", ember_s, loop_s, Target::ratio_at_most(1.5)});
  const double mrows = static_cast<double>(n) / 1e6;
  report.add(BenchRow{"same, as throughput", "Mrow/s", ember_s.rates(mrows), loop_s.rates(mrows),
                      std::nullopt});
  report.add(BenchRow{"same, CPU time (user+sys, all threads)", "s", ember_cpu, loop_cpu,
                      std::nullopt});
  report.note(fmt::format("baseline: std::thread loop, {} threads, one contiguous id range each; "
                          "ember: RunOptions.threads = {}, collect(select x) then sum in C++",
                          kThreads, kThreads));
  report.note(fmt::format("{} reps interleaved; sums checked equal on every rep; CPU time is "
                          "the steadier figure when other processes load the machine",
                          reps));
  return report.finish();
}
