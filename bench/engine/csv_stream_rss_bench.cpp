// Peak memory of streaming the ~1 GB CSV through a filter into write_csv, measured in a child
// process (this binary re-executed with --job) so that nothing else counts toward its peak.
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_options.h"
#include "bench_report.h"
#include "csv_fixture.h"
#include "ember/ember.h"
#include "line_count_floor.h"
#include "stopwatch.h"

extern char** environ;

namespace {

using namespace ember;
using ember::bench::BenchReport;
using ember::bench::BenchRow;
using ember::bench::Samples;
using ember::bench::Target;
namespace fs = std::filesystem;

constexpr int kThreads = 2;
constexpr int64_t kKeepEvery = 10;  // the filter keeps ids divisible by this
constexpr auto kJobDeadline = std::chrono::minutes(5);

/// This process's peak resident set (VmHWM), in kB; -1 if unreadable.
int64_t peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

/// The child's side: run the streaming query, then report "<VmHWM kB> <query seconds>".
int run_job(const std::string& in, const std::string& out_dir, const std::string& result) {
  RunOptions options;
  options.threads = kThreads;
  const double seconds = ember::bench::time_seconds([&] {
    read_csv(in)
        .where(col("id") % lit(int64_t{kKeepEvery}) == lit(int64_t{0}))
        .write_csv(out_dir, {}, options);
  });
  std::ofstream(result) << peak_rss_kb() << ' ' << seconds << '\n';
  return 0;
}

struct JobResult {
  double peak_mb = 0;    ///< the child's VmHWM
  double maxrss_mb = 0;  ///< ru_maxrss from wait4, a cross-check
  double seconds = 0;    ///< the query alone, timed inside the child
  bool ok = false;
};

/// Re-executes this binary as a streaming job and waits for it (killing it past a deadline).
JobResult spawn_job(const std::string& in, const std::string& out_dir, const std::string& result) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {self,    "--job-in",     in,    "--job-out",
                                   out_dir, "--job-result", result};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  JobResult r;
  if (::posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return r;
  const auto deadline = std::chrono::steady_clock::now() + kJobDeadline;
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::wait4(pid, &status, 0, &usage);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int64_t hwm_kb = -1;
  std::ifstream(result) >> hwm_kb >> r.seconds;
  r.peak_mb = static_cast<double>(hwm_kb) * 1024 / 1e6;
  r.maxrss_mb = static_cast<double>(usage.ru_maxrss) * 1024 / 1e6;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && hwm_kb > 0;
  return r;
}

struct OutputSummary {
  int64_t rows = 0, bytes = 0, files = 0;
};

/// Data rows and bytes written under `dir` (every part file starts with a header row).
OutputSummary summarize_output(const std::string& dir) {
  OutputSummary s;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".csv") continue;
    ++s.files;
    s.bytes += static_cast<int64_t>(entry.file_size());
    s.rows += ember::bench::count_lines(entry.path().string()) - 1;
  }
  return s;
}

int run_benchmark(const ember::bench::BenchOptions& options, const std::string& data_dir) {
  const int64_t target = options.size<int64_t>(int64_t{1024} << 20, int64_t{128} << 20);
  const int reps = options.repetitions(3, 2);
  BenchReport report("csv_stream_rss", options);
  const ember::bench::CsvFixture fx = ember::bench::ensure_csv_fixture(data_dir, target);
  const double mb = static_cast<double>(fx.bytes) / 1e6;
  const std::string out_dir = data_dir + "/stream-out", result = data_dir + "/stream-job.txt";
  const int64_t expect_rows = (fx.rows + kKeepEvery - 1) / kKeepEvery;

  ember::bench::count_lines(fx.path);  // into the page cache, as for the floor below
  Samples peak, input, job_rate, floor_rate, maxrss;
  OutputSummary out;
  for (int r = 0; r < reps; ++r) {
    fs::remove_all(out_dir);
    const JobResult job = spawn_job(fx.path, out_dir, result);
    if (!job.ok) {
      report.fail(fmt::format("rep {}: the streaming job failed or ran past its deadline", r));
      break;
    }
    out = summarize_output(out_dir);
    if (out.rows != expect_rows)
      report.fail(fmt::format("rep {}: wrote {} rows, expected {}", r, out.rows, expect_rows));
    peak.add(job.peak_mb);
    maxrss.add(job.maxrss_mb);
    input.add(mb);
    job_rate.add(mb / job.seconds);
    floor_rate.add(mb / ember::bench::time_seconds([&] { ember::bench::count_lines(fx.path); }));
  }
  fs::remove_all(out_dir);
  report.add(BenchRow{"peak RSS: read_csv->where->write_csv", "MB", peak, input,
                      Target::ember_at_most(512)});
  report.add(BenchRow{"same job, throughput vs memchr 1 thread", "MB/s", job_rate, floor_rate,
                      std::nullopt});
  report.note(
      fmt::format("baseline row 1: the input file size ({:.0f} MB, {} rows); ratio = "
                  "peak RSS / input size. Peak = VmHWM of the child process",
                  mb, fx.rows));
  report.note(fmt::format("cross-check ru_maxrss (wait4) median {:.0f} MB", maxrss.median()));
  report.note(
      fmt::format("filter id % {} == 0: wrote {} rows in {} files, {:.1f} MB; expected "
                  "{} rows: {}",
                  kKeepEvery, out.rows, out.files, static_cast<double>(out.bytes) / 1e6,
                  expect_rows, out.rows == expect_rows ? "match" : "MISMATCH"));
  report.note(
      fmt::format("ember: RunOptions.threads = {}; {} reps, each a fresh process", kThreads, reps));
  return report.finish();
}

}  // namespace

int main(int argc, char** argv) {
  ember::bench::BenchOptions options;
  std::string data_dir = "/tmp/ember-bench", job_in, job_out, job_result;
  CLI::App app{"peak memory of a streaming CSV filter job"};
  options.add_to(app);
  app.add_option("--data-dir", data_dir, "where the generated CSV lives (reused across runs)");
  app.add_option("--job-in", job_in)->group("");  // internal: the child's side
  app.add_option("--job-out", job_out)->group("");
  app.add_option("--job-result", job_result)->group("");
  CLI11_PARSE(app, argc, argv);
  if (!job_in.empty()) return run_job(job_in, job_out, job_result);
  return run_benchmark(options, data_dir);
}
