// Workers that die: noticed at once, replaced, the batch retried by the pool up to max_retries
// (the same rule as a call that throws) with every row exactly once; past that, an error naming
// the UDF, the actor, the signal and the batch.
// Also: workers die with their driver.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stop_token>
#include <thread>

#include "one_actor_pool.h"
#include "test_udfs.h"
#include "udf/actor.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

std::vector<int64_t> iota(int64_t n, int64_t from = 0) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + i;
  return v;
}

void expect_plus_one(const Column& out, const std::vector<int64_t>& in) {
  ASSERT_EQ(out.size(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(out.value<int64_t>(static_cast<int64_t>(i)), in[i] + 1);
}

bool wait_dead(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!process_dead(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(ProcessRetry, AbortOnceIsRetriedOnAFreshWorker) {
  TempDir dir;
  OneActorPool pool(process_spec<CrashOnce>("crashy", "CrashOnce", int64(),
                                            {{"marker", dir.file("crashed")}}, 1));
  const auto input = iota(100);
  expect_plus_one(column_of(pool.run(int_batch(input))), input);
  EXPECT_EQ(pool.pool().stats().inits, 2) << "the replacement worker constructed the UDF again";
  EXPECT_EQ(pool.pool().stats().retries, 1);
  expect_plus_one(column_of(pool.run(int_batch(iota(10, 50)))), iota(10, 50));
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

/// Runs one batch of a Gate UDF through a one-actor pool on a thread of its own, while this
/// thread kills the worker mid-call.
struct GatedRun {
  explicit GatedRun(std::shared_ptr<const UdfSpec> spec) : pool(std::move(spec)) {}
  OneActorPool pool;
  std::vector<int64_t> input = iota(3, 10);
  CallResult result;
  std::thread thread;

  void begin() {
    thread = std::thread([this] { result = pool.run(int_batch(input)); });
  }
};

pid_t kill_running_worker(const TempDir& dir) {
  EXPECT_TRUE(wait_for_file(dir.file("running")));
  const pid_t victim = std::atoi(read_file(dir.file("running")).c_str());
  std::filesystem::remove(dir.file("running"));
  EXPECT_EQ(::kill(victim, SIGKILL), 0);
  EXPECT_TRUE(wait_dead(victim, std::chrono::seconds(30)));
  return victim;
}

TEST(ProcessRetry, KillNineMidBatchIsRetried) {
  TempDir dir;
  GatedRun run(process_spec<Gate>("gate", "Gate", int64(), {{"dir", dir.path()}}, 2));
  run.begin();
  const pid_t victim = kill_running_worker(dir);
  write_file_atomically(dir.file("release"), "go");  // the replacement may finish the batch
  run.thread.join();
  ASSERT_EQ(message_of(run.result), "");
  expect_plus_one(column_of(run.result), run.input);
  EXPECT_EQ(run.pool.pool().stats().inits, 2);
  EXPECT_EQ(run.pool.pool().stats().retries, 1);
  const pid_t replacement = std::atoi(read_file(dir.file("running")).c_str());
  EXPECT_NE(replacement, victim);
  run.pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessRetry, KillNineWithoutRetriesNamesTheSignalAndTheBatch) {
  TempDir dir;
  GatedRun run(process_spec<Gate>("gate", "Gate", int64(), {{"dir", dir.path()}}));
  run.begin();
  const pid_t victim = kill_running_worker(dir);
  run.thread.join();
  const std::string m = message_of(run.result);
  EXPECT_NE(m.find("udf 'gate' actor #0"), std::string::npos) << m;
  EXPECT_NE(m.find("worker pid " + std::to_string(victim)), std::string::npos) << m;
  EXPECT_NE(m.find("signal 9 (SIGKILL)"), std::string::npos) << m;
  EXPECT_NE(m.find("batch of 3 rows"), std::string::npos) << m;
  EXPECT_NE(m.find("max_retries = 0"), std::string::npos) << m;
  EXPECT_EQ(run.pool.pool().stats().inits, 1);
  run.pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessRetry, GivesUpAfterMaxRetries) {
  OneActorPool pool(process_spec<AbortAlways>("crashy", "AbortAlways", int64(), {}, 2));
  const CallResult r = pool.run(int_batch(iota(512)));
  const std::string m = message_of(r);
  EXPECT_NE(m.find("udf 'crashy' actor #0: worker pid "), std::string::npos) << m;
  EXPECT_NE(m.find("was killed by signal 6 (SIGABRT) while running a batch of 512 rows; gave "
                   "up after 2 retries (max_retries = 2)"),
            std::string::npos)
      << m;
  EXPECT_EQ(pool.pool().stats().inits, 3);
  EXPECT_EQ(pool.pool().stats().retries, 2);
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessRetry, ADoomedQueryStartsNoReplacementWorker) {
  std::stop_source doomed;
  auto actor =
      make_process_actor(process_spec<AbortAlways>("crashy", "AbortAlways", int64(), {}, 3),
                         actor_context(0), doomed.get_token());
  actor->start();
  doomed.request_stop();  // the query failed elsewhere while this batch was on its way
  try {
    actor->call(int_batch(iota(5)));
    FAIL() << "call() should throw";
  } catch (const Cancelled& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("udf 'crashy' actor #0: worker pid "), std::string::npos) << m;
    EXPECT_NE(m.find("(SIGABRT) while running a batch of 5 rows; not retried, because the query "
                     "has already failed or is stopping"),
              std::string::npos)
        << m;
  }
  try {
    actor->call(int_batch(iota(2)));
    FAIL() << "call() should throw";
  } catch (const Cancelled& e) {
    EXPECT_NE(std::string(e.what()).find("no worker started for a batch of 2 rows"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(actor->inits(), 1) << "no worker was started after the query was doomed";
  actor->stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessRetry, WorkersDieWithTheirDriver) {
  TempDir dir;
  const auto shm_before = shm_entries();
  const pid_t driver = spawn_helper_test("ProcessHelper.DISABLED_DriverThatSleeps",
                                         {{"EMBER_TEST_DIR", dir.path()}});
  ASSERT_GT(driver, 0);
  ASSERT_TRUE(wait_for_file(dir.file("ready")));
  std::vector<pid_t> workers;
  for (int i = 0; i < 2; ++i) {
    workers.push_back(
        std::atoi(read_file(dir.file("worker-" + std::to_string(i) + ".pid")).c_str()));
    EXPECT_FALSE(process_dead(workers.back()));
  }
  ASSERT_EQ(::kill(driver, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(driver, &status, 0), driver);
  for (pid_t w : workers) EXPECT_TRUE(wait_dead(w, std::chrono::seconds(10))) << "worker " << w;
  EXPECT_EQ(shm_entries(), shm_before);
}

// Run in a child process: a driver with two process actors that sleeps until it is killed
// (or gives up after a minute).
TEST(ProcessHelper, DISABLED_DriverThatSleeps) {
  const char* dir = std::getenv("EMBER_TEST_DIR");
  ASSERT_NE(dir, nullptr);
  auto spec = process_spec<PidFile>("pidfile", "PidFile", utf8(), {{"dir", std::string(dir)}});
  auto a = make_process_actor(spec, actor_context(0));
  auto b = make_process_actor(spec, actor_context(1));
  a->start();
  b->start();
  write_file_atomically(std::string(dir) + "/ready", "yes");
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

}  // namespace
}  // namespace ember::test
