// ember_soak: queries in a loop from several threads, with a UDF whose worker crashes at random
// and writers SIGKILLed at random, checking after every step that no row is lost, duplicated or
// mixed, that an output directory always holds one complete write, and after every round that
// no worker process or descriptor is left behind.
//
//   ember_soak --seconds S [--threads T] [--crash-per-mille P] [--dir D]
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "output_generation.h"
#include "process_census.h"
#include "soak_udfs.h"

extern char** environ;

EMBER_REGISTER_UDF(ember::soak::FlakyIncrement);
EMBER_REGISTER_UDF(ember::soak::SlowIncrement);

namespace ember::soak {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Settings {
  int seconds = 60;
  int threads = 3;
  int64_t crash_per_mille = 250;  // with max_retries(3), about one query in four fails
  std::string dir;
};

/// Everything the soak counts, shared by its threads.
struct Tally {
  std::atomic<int64_t> collects_ok{0}, collects_failed{0}, writes_ok{0}, writes_failed{0};
  std::atomic<int64_t> writers_killed{0}, killed_kept_old{0}, killed_had_new{0};
  std::atomic<int64_t> rows_checked{0};
  std::mutex mu;
  std::string first_failure;

  void fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_failure.empty()) first_failure = what;
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mu);
    return !first_failure.empty();
  }
};

/// A query whose result is checked row by row: y = id + 1 for ids 0..n-1 in order, or a
/// UdfError once the flaky worker has used up its retries.
void collect_once(std::mt19937_64& rng, const Settings& s, Tally& tally) {
  const int64_t n = std::uniform_int_distribution<int64_t>(1, 30000)(rng);
  const int parts = std::uniform_int_distribution<int>(1, 6)(rng);
  const Udf flaky = Udf::cls<FlakyIncrement>("flaky")
                        .init_args({{"crash_per_mille", s.crash_per_mille}})
                        .returns(int64())
                        .isolation(Isolation::Process)
                        .batch_size(std::uniform_int_distribution<int64_t>(64, 4096)(rng))
                        .concurrency(std::uniform_int_distribution<int>(1, 2)(rng))
                        .num_cpus(0)  // queries of several threads run at once
                        .max_retries(3);
  Table t;
  try {
    t = range(n, parts).with_column("y", flaky(col("id"))).collect();
  } catch (const UdfError&) {
    ++tally.collects_failed;
    return;
  }
  const Column id = t.column("id"), y = t.column("y");
  if (t.num_rows() != n) {
    return tally.fail("collect: " + std::to_string(t.num_rows()) + " rows, expected " +
                      std::to_string(n));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (id.value<int64_t>(i) != i || y.value<int64_t>(i) != i + 1) {
      return tally.fail("collect: row " + std::to_string(i) + " wrong");
    }
  }
  tally.rows_checked += n;
  ++tally.collects_ok;
}

/// Writes the next generation to the thread's own directory with the flaky UDF: afterwards the
/// directory holds the new generation (success) or the old one (UdfError), and no debris.
void write_once(const std::string& dir, int64_t& next_gen, const Settings& s, Tally& tally) {
  const std::optional<Generation> before = read_generation(dir);
  const Generation g = make_generation(next_gen++);
  bool ok = true;
  try {
    write_generation(dir, g, s.crash_per_mille, 0);
  } catch (const UdfError&) {
    ok = false;
  }
  const std::optional<Generation> after = read_generation(dir);
  const int64_t want = ok ? g.gen : (before ? before->gen : -1);
  if ((after ? after->gen : -1) != want) {
    return tally.fail("write to " + dir + ": holds generation " +
                      std::to_string(after ? after->gen : -1) + ", expected " +
                      std::to_string(want));
  }
  if (const std::string d = debris_beside(dir); !d.empty()) {
    return tally.fail("write to " + dir + " left debris: " + d);
  }
  ++(ok ? tally.writes_ok : tally.writes_failed);
  if (after) tally.rows_checked += after->rows;
}

/// Starts this binary as a writer of generation `g`, SIGKILLs it after a random delay, and
/// checks the directory holds the old or the new generation, complete; then a clean write must
/// succeed and leave no debris of the killed one.
void kill_a_writer(const std::string& dir, int64_t& next_gen, std::mt19937_64& rng, Tally& tally) {
  const std::optional<Generation> before = read_generation(dir);
  const Generation g = make_generation(next_gen++);
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {exe, "--write-child", dir, std::to_string(g.gen)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    return tally.fail("posix_spawn of a writer failed");
  }
  std::this_thread::sleep_for(
      std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 1500)(rng)));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return tally.fail("writer child exited with status " + std::to_string(WEXITSTATUS(status)));
  }
  const std::optional<Generation> after = read_generation(dir);
  const int64_t got = after ? after->gen : -1;
  const int64_t old_gen = before ? before->gen : -1;
  if (got != g.gen && (finished || got != old_gen)) {
    return tally.fail("killed writer: " + dir + " holds generation " + std::to_string(got) +
                      ", expected " + std::to_string(old_gen) + " or " + std::to_string(g.gen));
  }
  ++tally.writers_killed;
  ++(got == g.gen ? tally.killed_had_new : tally.killed_kept_old);
  const Generation clean = make_generation(next_gen++);
  write_generation(dir, clean, 0, 0);
  const std::optional<Generation> now = read_generation(dir);
  if (!now || now->gen != clean.gen) return tally.fail("write after a killed writer failed");
  if (const std::string d = debris_beside(dir); !d.empty()) {
    return tally.fail("debris of a killed writer survived the next write: " + d);
  }
}

/// One round: every thread runs a few queries, one writer is killed; then nothing may be left.
void run_round(int round, const Settings& s, Tally& tally, int baseline_fds) {
  std::vector<std::thread> threads;
  for (int t = 0; t < s.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(std::random_device{}());
      const std::string dir = s.dir + "/thread-" + std::to_string(t) + "/out";
      int64_t next_gen = int64_t{round} * 1000 + t * 100;
      try {
        for (int q = 0; q < 3 && !tally.failed(); ++q) {
          if (rng() % 2) {
            collect_once(rng, s, tally);
          } else {
            write_once(dir, next_gen, s, tally);
          }
        }
      } catch (const std::exception& e) {
        tally.fail(std::string("thread ") + std::to_string(t) + ": " + e.what());
      }
    });
  }
  try {
    std::mt19937_64 rng(std::random_device{}());
    int64_t next_gen = int64_t{round} * 1000 + 900;
    kill_a_writer(s.dir + "/killed/out", next_gen, rng, tally);
  } catch (const std::exception& e) {
    tally.fail(std::string("killer: ") + e.what());
  }
  for (std::thread& t : threads) t.join();
  if (const std::string left = leftovers(baseline_fds, 3000); !left.empty()) {
    tally.fail("after round " + std::to_string(round) + ": " + left);
  }
}

int soak(const Settings& s) {
  for (int t = 0; t < s.threads; ++t)
    fs::create_directories(s.dir + "/thread-" + std::to_string(t));
  fs::create_directories(s.dir + "/killed");
  const int baseline_fds = open_descriptors();
  Tally tally;
  const auto end = Clock::now() + std::chrono::seconds(s.seconds);
  int rounds = 0;
  while (Clock::now() < end && !tally.failed()) run_round(rounds++, s, tally, baseline_fds);
  std::printf(
      "soak: %d rounds in %d s, %d threads, crash %lld/1000 calls | collects %lld ok, %lld "
      "UdfError | writes %lld ok, %lld UdfError (old set kept) | writers killed %lld (old set "
      "kept %lld, new set complete %lld) | rows checked %lld | leaks: %s\n",
      rounds, s.seconds, s.threads, static_cast<long long>(s.crash_per_mille),
      static_cast<long long>(tally.collects_ok.load()),
      static_cast<long long>(tally.collects_failed.load()),
      static_cast<long long>(tally.writes_ok.load()),
      static_cast<long long>(tally.writes_failed.load()),
      static_cast<long long>(tally.writers_killed.load()),
      static_cast<long long>(tally.killed_kept_old.load()),
      static_cast<long long>(tally.killed_had_new.load()),
      static_cast<long long>(tally.rows_checked.load()), tally.failed() ? "see below" : "none");
  if (tally.failed()) {
    std::fprintf(stderr, "soak FAILED: %s\n", tally.first_failure.c_str());
    return 1;
  }
  std::printf("soak passed\n");
  return 0;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--seconds")
      s.seconds = std::stoi(v);
    else if (k == "--threads")
      s.threads = std::stoi(v);
    else if (k == "--crash-per-mille")
      s.crash_per_mille = std::stoll(v);
    else if (k == "--dir")
      s.dir = v;
    else
      throw std::invalid_argument("unknown option " + k);
  }
  return s;
}

}  // namespace
}  // namespace ember::soak

int main(int argc, char** argv) {
  ember::init(argc, argv);  // serves when started as a worker
  namespace soak = ember::soak;
  if (argc == 4 && std::string(argv[1]) == "--write-child") {
    try {  // 20 ms a batch: the parent's SIGKILL lands before, during or after the commit
      soak::write_generation(argv[2], soak::make_generation(std::stoll(argv[3])), 0, 20000);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "writer child: %s\n", e.what());
      return 3;
    }
    return 0;
  }
  soak::Settings s;
  try {
    s = soak::parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "ember_soak: %s\nusage: ember_soak --seconds S [--threads T] "
                 "[--crash-per-mille P] [--dir D]\n",
                 e.what());
    return 2;
  }
  const bool own_dir = s.dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/ember-soak-XXXXXX";
    s.dir = ::mkdtemp(tmpl);
  }
  const int rc = soak::soak(s);
  if (own_dir && rc == 0) std::filesystem::remove_all(s.dir);
  return rc;
}
