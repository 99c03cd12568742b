// What actor pool lifecycle buys, through whole queries:
// (a) 10 short queries of a UDF whose constructor takes 200 ms, run in one ember::Session
//     against the same 10 without one: time ratio, target <= 0.15;
// (b) an autoscaling pool concurrency(1, 4) on a latency-bound UDF (each call sleeps 10 ms)
//     against a fixed concurrency(4): time ratio, target <= 1.15.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
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

constexpr int kQueries = 10;

/// Loads a "model" for 200 ms, then adds 1 to every row.
class HeavyInit {
 public:
  explicit HeavyInit(const InitArgs&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  Column operator()(const Batch& in) {
    std::vector<int64_t> out(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i)
      out[static_cast<size_t>(i)] = in.column(0).value<int64_t>(i) + 1;
    return Column::from(std::move(out));
  }
};

/// Sleeps 10 ms per call (a remote service), then returns id + 1.
class Remote {
 public:
  explicit Remote(const InitArgs&) {}
  Column operator()(const Batch& in) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::vector<int64_t> out(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i)
      out[static_cast<size_t>(i)] = in.column(0).value<int64_t>(i) + 1;
    return Column::from(std::move(out));
  }
};

RunOptions options(Session* session) {
  RunOptions o;
  o.threads = 2;
  o.resources = Resources{64, 0, int64_t{64} << 30};
  o.session = session;
  return o;
}

/// Runs `df` and checks that y == id + 1 on every row; returns the rows.
int64_t run_checked(const DataFrame& df, const RunOptions& o, BenchReport& report) {
  QueryResult q = df.execute(o);
  const Column id = q.table.column("id"), y = q.table.column("y");
  for (int64_t i = 0; i < y.size(); ++i)
    if (y.value<int64_t>(i) != id.value<int64_t>(i) + 1) {
      report.fail(
          fmt::format("row {}: y = {} for id {}", i, y.value<int64_t>(i), id.value<int64_t>(i)));
      break;
    }
  return q.table.num_rows();
}

/// (a) seconds for kQueries short queries, in a fresh session against without one.
void measure_session(BenchReport& report, int64_t rows, int reps) {
  const Udf heavy = Udf::cls<HeavyInit>("heavy").returns(int64()).batch_size(256);
  const DataFrame df = range(rows, 2).with_column("y", heavy(col("id")));
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    int64_t in_session = 0, alone = 0;
    with.add(ember::bench::time_seconds([&] {
      Session session;  // closed (its actors destroyed) inside the timing
      for (int q = 0; q < kQueries; ++q) in_session += run_checked(df, options(&session), report);
    }));
    without.add(ember::bench::time_seconds([&] {
      for (int q = 0; q < kQueries; ++q) alone += run_checked(df, options(nullptr), report);
    }));
    if (in_session != kQueries * rows || alone != kQueries * rows)
      report.fail(fmt::format("rep {}: {} and {} rows", r, in_session, alone));
  }
  report.add(BenchRow{fmt::format("(a) {} queries, 200 ms constructor, session vs none", kQueries),
                      "s", with, without, Target::ratio_at_most(0.15)});
}

/// (b) seconds for a 10 ms-per-call UDF, autoscaling 1..4 against a fixed 4.
void measure_autoscaling(BenchReport& report, int64_t rows, int reps) {
  auto remote = [](int min, int max) {
    return Udf::cls<Remote>("remote").returns(int64()).batch_size(64).num_cpus(1).concurrency(min,
                                                                                              max);
  };
  const DataFrame scaling = range(rows, 4).with_column("y", remote(1, 4)(col("id")));
  const DataFrame fixed = range(rows, 4).with_column("y", remote(4, 4)(col("id")));
  run_checked(fixed, options(nullptr), report);  // warm-up
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    with.add(ember::bench::time_seconds([&] { run_checked(scaling, options(nullptr), report); }));
    without.add(ember::bench::time_seconds([&] { run_checked(fixed, options(nullptr), report); }));
  }
  report.add(BenchRow{"(b) 10 ms calls, concurrency(1, 4) vs concurrency(4)", "s", with, without,
                      Target::ratio_at_most(1.15)});
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions opts;
  CLI::App app{"Actor pool lifecycle: warm actors in a session, autoscaling pools"};
  opts.add_to(app);
  CLI11_PARSE(app, argc, argv);

  const int64_t rows_a = opts.size<int64_t>(2000, 1000);
  const int64_t rows_b = opts.size<int64_t>(64 * 400, 64 * 200);
  const int reps = opts.repetitions(3, 2);
  BenchReport report("lifecycle", opts);
  measure_session(report, rows_a, reps);
  measure_autoscaling(report, rows_b, reps);
  report.note(fmt::format(
      "(a) {} x range({}, 2) -> y = heavy(id) (constructor sleeps 200 ms), concurrency 1; "
      "ember = all in one Session (made and closed inside the timing), baseline = no session",
      kQueries, rows_a));
  report.note(fmt::format(
      "(b) range({}, 4) -> y = remote(id), batch_size 64, each call sleeps 10 ms; ember = "
      "concurrency(1, 4) (starts at 1, grows), baseline = concurrency(4)",
      rows_b));
  report.note(
      fmt::format("{} reps interleaved; value = median seconds; ratio = ember / baseline", reps));
  return report.finish();
}
