// Process-isolated actors: the small-batch round trip (against thread actors), and a 64 MiB
// batch through an identity UDF, process against thread isolation.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <numeric>

#include "bench_options.h"
#include "bench_report.h"
#include "ember/ember.h"
#include "identity_udf.h"
#include "round_trip.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

// Worker processes construct these by name.
EMBER_REGISTER_UDF(ember::bench::Identity);
EMBER_REGISTER_UDF(ember::bench::CopyIdentity);

namespace {

using namespace ember;
using ember::bench::BenchReport;
using ember::bench::BenchRow;
using ember::bench::Samples;
using ember::bench::Target;

constexpr int64_t kSmallRows = 16;

template <class T>
std::unique_ptr<ActorPool> started_pool(Isolation iso, int64_t batch_rows) {
  Udf udf = Udf::cls<T>("identity").returns(int64()).batch_size(batch_rows).isolation(iso);
  auto pool =
      std::make_unique<ActorPool>(detail::UdfAccess::spec(udf), std::vector<ActorContext>{});
  pool->start();
  return pool;
}

Batch int_batch(int64_t rows) {
  std::vector<int64_t> v(static_cast<size_t>(rows));
  std::iota(v.begin(), v.end(), int64_t{0});
  return Batch(Schema({{"x", int64()}}), {Column::from(std::move(v))});
}

/// The value below which a fraction `q` of `v` lies (nearest rank).
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

/// Median (and 90th percentile) round trip of a 16-row batch: process actor vs thread actor.
void measure_small(BenchReport& report, int rounds, int reps) {
  auto proc = started_pool<ember::bench::Identity>(Isolation::Process, kSmallRows);
  auto thread = started_pool<ember::bench::Identity>(Isolation::Thread, kSmallRows);
  const Batch args = int_batch(kSmallRows);
  ember::bench::pool_round_trips_us(*proc, args, rounds / 10);  // warm-up
  ember::bench::pool_round_trips_us(*thread, args, rounds / 10);
  Samples p, t, p90, t90;
  for (int r = 0; r < reps; ++r) {
    const auto proc_us = ember::bench::pool_round_trips_us(*proc, args, rounds);
    const auto thread_us = ember::bench::pool_round_trips_us(*thread, args, rounds);
    p.add(Samples(proc_us).median());
    t.add(Samples(thread_us).median());
    p90.add(quantile(proc_us, 0.9));
    t90.add(quantile(thread_us, 0.9));
  }
  report.add(
      BenchRow{"16-row round trip, process vs thread", "us", p, t, Target::ember_at_most(50)});
  report.add(BenchRow{"16-row round trip p90, process vs thread", "us", p90, t90, std::nullopt});
}

/// Time of one large batch through UDF T, process actor vs thread actor.
template <class T>
void measure_large(BenchReport& report, const std::string& name, int64_t rows, int reps) {
  auto proc = started_pool<T>(Isolation::Process, rows);
  auto thread = started_pool<T>(Isolation::Thread, rows);
  const Batch args = int_batch(rows);
  ember::bench::pool_round_trips_us(*proc, args, 1);  // warm-up: maps and faults the regions
  ember::bench::pool_round_trips_us(*thread, args, 1);
  Samples p, t;
  for (int r = 0; r < reps; ++r) {
    p.add(ember::bench::pool_round_trips_us(*proc, args, 1)[0] / 1000);
    t.add(ember::bench::pool_round_trips_us(*thread, args, 1)[0] / 1000);
  }
  report.add(BenchRow{name, "ms", p, t, Target::ratio_at_most(1.3)});
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);  // a worker process serves here and never returns
  ember::bench::BenchOptions options;
  CLI::App app{"process-isolated actors vs thread actors"};
  options.add_to(app);
  CLI11_PARSE(app, argc, argv);

  const int rounds = options.size(10'000, 2'000);
  const int64_t big_rows = options.size<int64_t>(int64_t{8} << 20, int64_t{2} << 20);
  const int reps = options.repetitions(5, 3);
  const int64_t mib = big_rows * 8 >> 20;
  BenchReport report("process_actor", options);
  measure_small(report, rounds, reps);
  measure_large<ember::bench::Identity>(
      report, fmt::format("{} MiB batch, identity (returns arg)", mib), big_rows, reps);
  measure_large<ember::bench::CopyIdentity>(
      report, fmt::format("{} MiB batch, identity (new column)", mib), big_rows, reps);
  report.note(
      fmt::format("16-row: median (and 90th percentile) of {} dispatch/wait round trips "
                  "through ActorPool (1 actor); baseline = the same with Isolation::Thread",
                  rounds));
  report.note(
      fmt::format("{} MiB: one batch of {} int64 rows per round trip, 1 actor; "
                  "'returns arg' hands back the input column (zero-copy on a thread), "
                  "'new column' copies it into a fresh column as a real UDF would",
                  mib, big_rows));
  report.note(fmt::format("{} reps interleaved; every call's row count checked", reps));
  return report.finish();
}
