// Deadlines for process actors: a call past Udf::timeout has its worker killed (SIGKILL); the
// batch fails (retried, or delivered as failed) and the next call runs on a fresh worker.
// A hung worker without a timeout is killed by a teardown that has waited past its grace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "one_actor_pool.h"
#include "test_udfs.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::shared_ptr<UdfSpec> gate_spec(const TempDir& dir) {
  return std::make_shared<UdfSpec>(
      *process_spec<Gate>("gate", "Gate", int64(), {{"dir", dir.path()}}));
}

TEST(ProcessDeadline, AWorkerPastItsTimeoutIsKilledAndReplaced) {
  TempDir dir;
  auto spec = gate_spec(dir);
  spec->timeout = milliseconds(200);
  spec->on_error = OnError::Null;
  OneActorPool pool(spec);
  const auto t0 = Clock::now();
  const CallResult hung = pool.run(int_batch({1, 2, 3}));
  const auto took = Clock::now() - t0;
  const std::string m = message_of(hung);
  EXPECT_NE(m.find("udf 'gate' actor #0: a call on 1 arg (x: int64), 3 rows ran past its timeout "
                   "of 200 ms; worker pid "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("was killed (SIGKILL)"), std::string::npos) << m;
  EXPECT_GE(took, milliseconds(200));
  EXPECT_LT(took, std::chrono::seconds(5));
  const pid_t victim = std::atoi(read_file(dir.file("running")).c_str());
  EXPECT_TRUE(process_dead(victim));
  // The next call starts a fresh worker, which is let through.
  write_file_atomically(dir.file("release"), "go");
  const Column out = column_of(pool.run(int_batch({7})));
  EXPECT_EQ(out.value<int64_t>(0), 8);
  EXPECT_NE(std::atoi(read_file(dir.file("running")).c_str()), victim);
  const UdfStats s = pool.pool().stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.inits, 2);
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessDeadline, ATimedOutBatchIsRetriedOnAFreshWorker) {
  TempDir dir;
  auto spec = gate_spec(dir);
  spec->timeout = milliseconds(200);
  spec->max_retries = 1;
  OneActorPool pool(spec);
  // Let the retry through once the first worker is dead.
  std::thread opener([&] {
    EXPECT_TRUE(wait_for_file(dir.file("running")));
    const pid_t first = std::atoi(read_file(dir.file("running")).c_str());
    const auto until = Clock::now() + std::chrono::seconds(20);
    while (!process_dead(first) && Clock::now() < until)
      std::this_thread::sleep_for(milliseconds(5));
    write_file_atomically(dir.file("release"), "go");
  });
  const Column out = column_of(pool.run(int_batch({1, 2})));
  opener.join();
  EXPECT_EQ(out.value<int64_t>(1), 3);
  const UdfStats s = pool.pool().stats();
  EXPECT_EQ(s.timeouts, 1);
  EXPECT_EQ(s.retries, 1);
  EXPECT_EQ(s.inits, 2);
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessDeadline, TeardownKillsAHungWorkerPastItsGrace) {
  TempDir dir;
  OneActorPool pool(gate_spec(dir));  // no timeout: the call would wait for "release"
  pool.pool().set_teardown_grace(milliseconds(100));
  std::optional<CallResult> result;
  std::thread caller([&] { result = pool.run(int_batch({1})); });
  ASSERT_TRUE(wait_for_file(dir.file("running")));
  const auto t0 = Clock::now();
  pool.pool().stop();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  caller.join();
  ASSERT_TRUE(result.has_value());
  EXPECT_NE(message_of(*result), "");
  EXPECT_EQ(pool.pool().in_flight(), 0);
  EXPECT_TRUE(all_children(::getpid()).empty());
}

}  // namespace
}  // namespace ember::test
