// Actor dispatch overhead of a stateful UDF on thread actors, with small batches:
// (a) amortised per batch through whole queries, against the same query without the UDF;
// (b) ping-pong latency through ActorPool::dispatch, against a bare thread round trip.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "bench_options.h"
#include "bench_report.h"
#include "ember/ember.h"
#include "identity_udf.h"
#include "round_trip.h"
#include "stopwatch.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"

namespace {

using namespace ember;
using ember::bench::BenchReport;
using ember::bench::BenchRow;
using ember::bench::Samples;
using ember::bench::Target;

constexpr int kThreads = 2;
constexpr int kPartitions = 4;
constexpr int64_t kBatchRows = 16;

RunOptions query_options() {
  RunOptions o;
  o.threads = kThreads;
  // Room for the pool's actors beside the pipeline threads on a small machine: this measures
  // dispatch, not admission.
  o.resources = Resources{64, 0, int64_t{64} << 30};
  return o;
}

Udf identity(int concurrency) {
  return Udf::cls<ember::bench::Identity>("identity")
      .returns(int64())
      .batch_size(kBatchRows)
      .concurrency(concurrency);
}

/// Runs range(n) -> y = f(id) and returns sum(y) (checked against sum(id) by the caller).
int64_t run_query(int64_t n, const std::optional<Udf>& udf) {
  Expr y = udf ? (*udf)(col("id")) : col("id");
  Table t = range(n, kPartitions).with_column("y", y).select({col("y")}).collect(query_options());
  int64_t sum = 0;
  for (const Batch& b : t.batches()) {
    const Column& c = b.column(0);
    for (int64_t i = 0; i < c.size(); ++i) sum += c.value<int64_t>(i);
  }
  return sum;
}

/// (a): microseconds per 16-row batch, with and without the UDF, for one pool size.
void measure_query(BenchReport& report, int64_t n, int reps, int concurrency) {
  const Udf udf = identity(concurrency);
  const int64_t batches = n / kBatchRows;
  const int64_t expect = n * (n - 1) / 2;
  run_query(n / 16, udf);  // warm-up
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    int64_t a = 0, b = 0;
    with.add(ember::bench::time_seconds([&] { a = run_query(n, udf); }) * 1e6 /
             static_cast<double>(batches));
    without.add(ember::bench::time_seconds([&] { b = run_query(n, std::nullopt); }) * 1e6 /
                static_cast<double>(batches));
    if (a != expect || b != expect)
      report.fail(fmt::format("c={} rep {}: wrong sum", concurrency, r));
  }
  report.add(BenchRow{fmt::format("(a) query, per 16-row batch, c={}", concurrency), "us", with,
                      without, Target::overhead_at_most(5)});
}

/// (b): median round trip of one 16-row batch through a started pool.
void measure_ping_pong(BenchReport& report, int rounds, int reps) {
  ActorPool pool(detail::UdfAccess::spec(identity(1)), {});
  pool.start();
  std::vector<int64_t> ids(kBatchRows);
  for (int64_t i = 0; i < kBatchRows; ++i) ids[static_cast<size_t>(i)] = i;
  const Batch args(Schema({{"id", int64()}}), {Column::from(ids)});
  ember::bench::pool_round_trips_us(pool, args, rounds / 10);  // warm-up
  ember::bench::thread_round_trips_us(rounds / 10);
  Samples pool_us, thread_us;
  for (int r = 0; r < reps; ++r) {
    pool_us.add(Samples(ember::bench::pool_round_trips_us(pool, args, rounds)).median());
    thread_us.add(Samples(ember::bench::thread_round_trips_us(rounds)).median());
  }
  pool.stop();
  report.add(BenchRow{"(b) ActorPool::dispatch round trip", "us", pool_us, thread_us,
                      Target::ember_at_most(5)});
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions options;
  CLI::App app{"stateful UDF dispatch overhead, thread actors"};
  options.add_to(app);
  CLI11_PARSE(app, argc, argv);

  const int64_t n = options.size<int64_t>(1 << 20, 1 << 18);
  const int rounds = options.size(10'000, 2'000);
  const int reps = options.repetitions(5, 3);
  BenchReport report("actor_dispatch", options);
  measure_query(report, n, reps, 1);
  measure_query(report, n, reps, 2);
  measure_ping_pong(report, rounds, reps);
  report.note(
      fmt::format("(a) range({}, {}) -> y = identity(id) (batch_size {}, stateful, "
                  "thread actors) vs y = id; threads = {}; value = query time / {} "
                  "batches; target on ember - baseline (the added cost per batch)",
                  n, kPartitions, kBatchRows, kThreads, n / kBatchRows));
  report.note(
      fmt::format("(b) one {}-row batch dispatched, waited for, repeated {} times; value "
                  "= median per round trip; baseline = the same ping-pong between two "
                  "bare std::threads (mutex + condition variable, the OS floor)",
                  kBatchRows, rounds));
  report.note(
      fmt::format("{} reps interleaved; value = median over reps of each rep's value; "
                  "query sums checked on every rep",
                  reps));
  return report.finish();
}
