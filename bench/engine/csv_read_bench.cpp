// CSV read throughput: read_csv over a ~1 GB file (every column parsed, a handful of rows
// kept) beside a memchr newline count of the same page-cached file, the I/O floor.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "bench_options.h"
#include "bench_report.h"
#include "csv_fixture.h"
#include "ember/ember.h"
#include "line_count_floor.h"
#include "stopwatch.h"

namespace {

using namespace ember;
using ember::bench::BenchReport;
using ember::bench::BenchRow;
using ember::bench::Samples;
using ember::bench::Target;

constexpr int kThreads = 2;
constexpr int64_t kKeepEvery = 1'000'003;  // rows kept: ids divisible by this

/// Reads the whole file through ember. The predicate touches every column (all but the id
/// test are true for every generated row), so no reader can skip parsing one; the few rows it
/// keeps prove no row was lost.
Table ember_read(const std::string& path) {
  RunOptions options;
  options.threads = kThreads;
  Expr keep = col("id") % lit(int64_t{kKeepEvery}) == lit(int64_t{0});
  Expr always =
      col("a") >= lit(0.0) && col("b") >= lit(int64_t{-500'000}) && col("s") != lit(std::string());
  return read_csv(path).where(keep && always).collect(options);
}

/// The ids the query must return, in order.
bool ids_are_expected(const Table& t, int64_t rows) {
  const int64_t expect = (rows + kKeepEvery - 1) / kKeepEvery;
  if (t.num_rows() != expect) return false;
  Column id = t.column("id");
  for (int64_t i = 0; i < expect; ++i)
    if (id.value<int64_t>(i) != i * kKeepEvery) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions options;
  std::string data_dir = "/tmp/ember-bench";
  CLI::App app{"ember read_csv throughput vs a memchr line count"};
  options.add_to(app);
  app.add_option("--data-dir", data_dir, "where the generated CSV lives (reused across runs)");
  CLI11_PARSE(app, argc, argv);

  const int64_t target = options.size<int64_t>(int64_t{1024} << 20, int64_t{128} << 20);
  const int reps = options.repetitions(3, 3);
  BenchReport report("csv_read", options);
  const ember::bench::CsvFixture fx = ember::bench::ensure_csv_fixture(data_dir, target);
  const double mb = static_cast<double>(fx.bytes) / 1e6;

  // Both sides read from the page cache: the first count brings the file in.
  if (ember::bench::count_lines(fx.path) != fx.rows + 1) report.fail("line count of the fixture");
  Samples ember_s, floor1_s, floor2_s, ember_cpu, floor1_cpu;
  for (int r = 0; r < reps; ++r) {
    Table t;
    const auto et = ember::bench::time_run([&] { t = ember_read(fx.path); });
    ember_s.add(et.wall);
    ember_cpu.add(et.cpu);
    if (!ids_are_expected(t, fx.rows))
      report.fail(fmt::format("rep {}: wrong rows from read_csv", r));
    int64_t lines1 = 0, lines2 = 0;
    const auto ft = ember::bench::time_run([&] { lines1 = ember::bench::count_lines(fx.path, 1); });
    floor1_s.add(ft.wall);
    floor1_cpu.add(ft.cpu);
    floor2_s.add(
        ember::bench::time_seconds([&] { lines2 = ember::bench::count_lines(fx.path, 2); }));
    if (lines1 != fx.rows + 1 || lines2 != fx.rows + 1) report.fail("line count mismatch");
  }
  report.add(BenchRow{"read_csv 4 cols vs memchr, 1 thread", "MB/s", ember_s.rates(mb),
                      floor1_s.rates(mb), Target::ratio_at_least(0.3)});
  report.add(BenchRow{"read_csv 4 cols vs memchr, 2 threads", "MB/s", ember_s.rates(mb),
                      floor2_s.rates(mb), std::nullopt});
  report.add(BenchRow{"CPU time (user+sys) vs memchr, 1 thread", "s", ember_cpu, floor1_cpu,
                      std::nullopt});
  report.note(
      fmt::format("file {} ({:.0f} MB, {} rows: id int64, a float64, b int64, s utf8), "
                  "in page cache for both sides",
                  fx.path, mb, fx.rows));
  report.note(
      fmt::format("ember: RunOptions.threads = {}; read_csv splits the file into "
                  "{} MiB ranges read in parallel on those threads",
                  kThreads, CsvOptions{}.split_bytes >> 20));
  report.note(
      "baseline row 1: memchr('\\n') over pread blocks on ONE thread (the target's "
      "floor); row 2: the same on 2 threads, one half each (a fairer floor, for info)");
  report.note(
      fmt::format("{} reps interleaved; every rep checked: line count = rows + 1, and "
                  "read_csv kept exactly the ids divisible by {}",
                  reps, kKeepEvery));
  return report.finish();
}
