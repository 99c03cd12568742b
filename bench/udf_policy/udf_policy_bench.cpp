// What the UDF failure policy costs, and what concurrent calls per actor buy, through whole
// queries:
// (a) 1 row in 1,000 failing under OnError::Null (each isolated by splitting in 8) against the same
//     query where no row fails: throughput ratio, target >= 0.8;
// (b) an I/O-bound UDF (each call sleeps 10 ms) with concurrency(2).max_concurrency(8) against
//     max_concurrency(1): throughput ratio, target >= 6.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <stdexcept>
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

constexpr int kPartitions = 4;
/// Multiply-adds per row in (a): about 1 us per row, the order of a small model's inference.
constexpr int64_t kRounds = 1000;

/// Returns a hash of id ("rounds" multiply-adds per row: the work of a real scorer); throws for
/// a batch holding an id with id % 1000 == 999 when init arg "fail" is true.
class Scorer {
 public:
  explicit Scorer(const InitArgs& a)
      : fail_(a.get<bool>("fail")), rounds_(a.get<int64_t>("rounds")) {}
  Column operator()(const Batch& in) {
    const Column& id = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = id.value<int64_t>(i);
      if (fail_ && v % 1000 == 999) throw std::runtime_error("bad id " + std::to_string(v));
      int64_t h = v;
      for (int64_t k = 0; k < rounds_; ++k) h = h * 6364136223846793005LL + 1442695040888963407LL;
      out[static_cast<size_t>(i)] = h;
    }
    return Column::from(std::move(out));
  }

 private:
  bool fail_;
  int64_t rounds_;
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

RunOptions options() {
  RunOptions o;
  o.threads = 2;
  o.resources = Resources{64, 0, int64_t{64} << 30};
  return o;
}

/// Rows out, nulls among them, and the query's wall time.
struct Run {
  int64_t rows = 0, nulls = 0, rejected = 0;
  double seconds = 0;
};

Run run(const Udf& udf, int64_t n) {
  Run r;
  r.seconds = ember::bench::time_seconds([&] {
    QueryResult q = range(n, kPartitions).with_column("y", udf(col("id"))).execute(options());
    for (const Batch& b : q.table.batches()) {
      const Column& y = b.column(b.num_columns() - 1);
      r.rows += y.size();
      for (int64_t i = 0; i < y.size(); ++i) r.nulls += y.is_null(i) ? 1 : 0;
    }
    r.rejected = q.rejected.num_rows();
  });
  return r;
}

/// (a) rows per second with 1 in 1,000 rows failing under Null, and with none failing.
void measure_isolation(BenchReport& report, int64_t n, int reps, int64_t batch_size) {
  auto scorer = [batch_size](bool fail) {
    return Udf::cls<Scorer>("scorer")
        .returns(int64())
        .init_args({{"fail", fail}, {"rounds", kRounds}})
        .batch_size(batch_size)
        .concurrency(2)
        .on_error(OnError::Null);
  };
  const Udf failing = scorer(true), clean = scorer(false);
  run(failing, n / 8);  // warm-up
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    const Run a = run(failing, n), b = run(clean, n);
    with.add(static_cast<double>(n) / a.seconds);
    without.add(static_cast<double>(n) / b.seconds);
    if (a.rows != n || b.rows != n || a.nulls != n / 1000 || a.rejected != n / 1000 || b.nulls != 0)
      report.fail(
          fmt::format("rep {}: {} rows, {} nulls, {} rejected (failing); {} rows, {} "
                      "nulls (clean)",
                      r, a.rows, a.nulls, a.rejected, b.rows, b.nulls));
  }
  report.add(BenchRow{fmt::format("(a) 1 in 1,000 rows failing, Null, batch_size {}", batch_size),
                      "rows/s", with, without, Target::ratio_at_least(0.8)});
}

/// (b) rows per second of a 10 ms-per-call UDF, 8 calls per actor against 1.
void measure_concurrent_calls(BenchReport& report, int64_t n, int reps) {
  auto remote = [](int calls) {
    return Udf::cls<Remote>("remote")
        .returns(int64())
        .batch_size(64)
        .concurrency(2)
        .max_concurrency(calls);
  };
  const Udf eight = remote(8), one = remote(1);
  run(eight, n / 8);  // warm-up
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    const Run a = run(eight, n), b = run(one, n);
    with.add(static_cast<double>(n) / a.seconds);
    without.add(static_cast<double>(n) / b.seconds);
    if (a.rows != n || b.rows != n || a.nulls != 0 || b.nulls != 0)
      report.fail(fmt::format("rep {}: {} and {} rows", r, a.rows, b.rows));
  }
  report.add(BenchRow{"(b) 10 ms calls, max_concurrency 8 vs 1", "rows/s", with, without,
                      Target::ratio_at_least(6)});
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions opts;
  CLI::App app{"UDF failure policy: isolation cost and concurrent calls per actor"};
  opts.add_to(app);
  CLI11_PARSE(app, argc, argv);

  const int64_t n_a = opts.size<int64_t>(400'000, 100'000);
  const int64_t n_b = opts.size<int64_t>(64 * 256, 64 * 64);
  const int reps = opts.repetitions(5, 3);
  BenchReport report("udf_policy", opts);
  // The cost of isolation grows with the share of batches holding a failing row: about every
  // batch at 1024 rows, 1 in 16 at 64.
  measure_isolation(report, n_a, reps, 1024);
  measure_isolation(report, n_a, reps, 64);
  measure_concurrent_calls(report, n_b, reps);
  report.note(fmt::format(
      "(a) range({}, {}) -> y = scorer(id) ({} multiply-adds per row), concurrency 2, "
      "OnError::Null; "
      "ember = ids with id % 1000 == 999 throw (each row isolated by splitting in 8, nulled and "
      "rejected: checked), baseline = the same UDF where none throws",
      n_a, kPartitions, kRounds));
  report.note(fmt::format(
      "(b) range({}, {}) -> y = remote(id), batch_size 64, concurrency 2, each call sleeps "
      "10 ms; ember = max_concurrency(8), baseline = max_concurrency(1)",
      n_b, kPartitions));
  report.note(
      fmt::format("{} reps interleaved; value = median of rows/s; ratio = ember / baseline", reps));
  return report.finish();
}
