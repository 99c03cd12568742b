// What resumable writes cost and save, on a Parquet -> UDF (process actors) -> Parquet job:
// (a) resumable with the default checkpoint_rows against the same write without it: time
//     ratio, target <= 1.05;
// (b) the run that resumes a job SIGKILLed at 80% of a full run's time against a full run
//     (both as fresh processes, checkpoint_rows 500): time ratio, target <= 0.3.
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
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
namespace fs = std::filesystem;

/// An inference-like call: 50 us per row of waiting (a model on a device), then id * 2.
class Infer {
 public:
  explicit Infer(const InitArgs&) {}
  Column operator()(const Batch& in) {
    std::this_thread::sleep_for(std::chrono::microseconds(50 * in.num_rows()));
    std::vector<int64_t> out(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i)
      out[static_cast<size_t>(i)] = in.column(0).value<int64_t>(i) * 2;
    return Column::from(std::move(out));
  }
};

}  // namespace

EMBER_REGISTER_UDF(Infer);

namespace {

RunOptions options(bool resumable, int64_t checkpoint_rows) {
  RunOptions o;
  o.threads = 2;
  o.resources = Resources{64, 0, int64_t{64} << 30};
  o.resumable = resumable;
  o.checkpoint_rows = checkpoint_rows;
  return o;
}

QueryResult run_job(const std::string& input, const std::string& out, const RunOptions& o) {
  const Udf infer =
      Udf::cls<Infer>("infer").returns(int64()).batch_size(100).concurrency(2).isolation(
          Isolation::Process);
  return read_parquet(input).with_column("y", infer(col("id"))).write_parquet(out, {}, o);
}

/// Every row of `out` once, in order, with y = 2 id.
void check_output(const std::string& out, int64_t rows, BenchReport& report) {
  const Table t = read_parquet(out + "/*.parquet").collect();
  const Column id = t.column("id"), y = t.column("y");
  if (t.num_rows() != rows) report.fail(fmt::format("{} rows written, not {}", t.num_rows(), rows));
  for (int64_t i = 0; i < t.num_rows(); ++i)
    if (id.value<int64_t>(i) != i || y.value<int64_t>(i) != 2 * i) {
      report.fail(fmt::format("row {}: id {}, y {}", i, id.value<int64_t>(i), y.value<int64_t>(i)));
      return;
    }
}

/// (a) seconds of the job with resumable (default checkpoint_rows) against without.
void measure_overhead(BenchReport& report, const fs::path& dir, int64_t rows, int reps) {
  const std::string input = (dir / "in" / "*.parquet").string();
  run_job(input, (dir / "warm").string(), options(false, 0));  // warm-up
  Samples with, without;
  for (int r = 0; r < reps; ++r) {
    with.add(ember::bench::time_seconds(
        [&] { run_job(input, (dir / "a-with").string(), options(true, 0)); }));
    without.add(ember::bench::time_seconds(
        [&] { run_job(input, (dir / "a-without").string(), options(false, 0)); }));
  }
  check_output((dir / "a-with").string(), rows, report);
  check_output((dir / "a-without").string(), rows, report);
  report.add(BenchRow{"(a) resumable (checkpoint_rows 0) vs not", "s", with, without,
                      Target::ratio_at_most(1.05)});
}

/// This program again, running the job once into `out` (see main: --job).
pid_t spawn_job(const std::string& self, const fs::path& dir, const std::string& out) {
  std::vector<std::string> args = {self, "--job", dir.string(), "--out", out};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  return posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) == 0 ? pid
                                                                                          : -1;
}

double run_child(const std::string& self, const fs::path& dir, const std::string& out,
                 BenchReport& report) {
  return ember::bench::time_seconds([&] {
    int status = 0;
    ::waitpid(spawn_job(self, dir, out), &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) report.fail("a job process failed");
  });
}

/// (b) seconds of the run that resumes a job killed at 80% of a full run, against a full run.
void measure_resume(BenchReport& report, const std::string& self, const fs::path& dir, int64_t rows,
                    int reps) {
  Samples resumed, full;
  for (int r = 0; r < reps; ++r) {
    const std::string out = (dir / fmt::format("b-{}", r)).string();
    const double whole = run_child(self, dir, (dir / "b-full").string(), report);
    full.add(whole);
    const pid_t pid = spawn_job(self, dir, out);
    std::this_thread::sleep_for(std::chrono::duration<double>(0.8 * whole));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    resumed.add(run_child(self, dir, out, report));
    check_output(out, rows, report);
  }
  report.add(BenchRow{"(b) resumed after a kill at 80% vs a full run", "s", resumed, full,
                      Target::ratio_at_most(0.3)});
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);  // process actors: serves as a worker when started as one
  ember::bench::BenchOptions opts;
  std::string job, out;
  CLI::App app{"Resumable writes: the journal's overhead, and the work a resume saves"};
  opts.add_to(app);
  app.add_option("--job", job, "(internal) run the job once on this directory's input");
  app.add_option("--out", out, "(internal) the job's output directory");
  CLI11_PARSE(app, argc, argv);
  if (!job.empty()) {
    run_job((fs::path(job) / "in" / "*.parquet").string(), out, options(true, 500));
    return 0;
  }

  const int64_t rows = opts.size<int64_t>(64000, 16000);
  const int files = 32;
  const int reps = opts.repetitions(5, 2);
  const fs::path dir = fs::temp_directory_path() / fmt::format("ember-resume-bench-{}", getpid());
  range(rows, files).write_parquet((dir / "in").string());
  BenchReport report("resume", opts);
  measure_overhead(report, dir, rows, reps);
  measure_resume(report, argv[0], dir, rows, reps);
  report.note(fmt::format(
      "read_parquet({} ids in {} files) -> y = infer(id) (process actors, concurrency 2, batch "
      "100, 50 us of waiting per row) -> write_parquet, 2 pipeline threads",
      rows, files));
  report.note("(a) ember = resumable, checkpoint_rows 0; baseline = the same write, not resumable");
  report.note(
      "(b) each as a fresh process, checkpoint_rows 500: ember = the rerun after a SIGKILL at 80% "
      "of the full run's time; baseline = a full run");
  report.note(
      fmt::format("{} reps interleaved; value = median seconds; ratio = ember / baseline", reps));
  std::error_code ec;
  fs::remove_all(dir, ec);
  return report.finish();
}
