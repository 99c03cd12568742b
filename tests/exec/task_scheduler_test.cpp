// The task state machine: Done, Yield, Blocked and wake, wake while running, on_done.
#include "exec/task_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ember/error.h"

namespace ember {
namespace {

/// Runs `body` each turn and counts the turns.
class ScriptedTask : public Task {
 public:
  explicit ScriptedTask(std::function<Step(int)> body) : body_(std::move(body)) {}
  Step run() override { return body_(++runs); }
  std::atomic<int> runs{0};

 private:
  std::function<Step(int)> body_;
};

/// Counts on_done calls and waits for them, at most 30 s.
class DoneLatch {
 public:
  std::function<void(Task*)> callback() {
    return [this](Task*) {
      std::lock_guard lock(mu_);
      ++done_;
      cv_.notify_all();
    };
  }
  bool wait(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return done_ >= n; });
  }
  int done() {
    std::lock_guard lock(mu_);
    return done_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int done_ = 0;
};

class TaskSchedulerTest : public testing::TestWithParam<int> {};

TEST_P(TaskSchedulerTest, DoneRunsOnceAndCallsOnDoneOnce) {
  DoneLatch latch;
  ScriptedTask t([](int) { return Task::Step::Done; });
  {
    TaskScheduler s(GetParam(), latch.callback());
    s.wake(&t);
    ASSERT_TRUE(latch.wait(1));
    s.wake(&t);  // a done task is never run again
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(t.runs, 1);
  EXPECT_EQ(latch.done(), 1);
}

TEST_P(TaskSchedulerTest, YieldRunsAgainWithoutAWake) {
  DoneLatch latch;
  ScriptedTask t([](int run) { return run < 5 ? Task::Step::Yield : Task::Step::Done; });
  TaskScheduler s(GetParam(), latch.callback());
  s.wake(&t);
  ASSERT_TRUE(latch.wait(1));
  EXPECT_EQ(t.runs, 5);
}

TEST_P(TaskSchedulerTest, BlockedWaitsForAWake) {
  DoneLatch latch;
  ScriptedTask t([](int run) { return run == 1 ? Task::Step::Blocked : Task::Step::Done; });
  TaskScheduler s(GetParam(), latch.callback());
  s.wake(&t);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(t.runs, 1) << "a blocked task stays idle until woken";
  EXPECT_EQ(latch.done(), 0);
  s.wake(&t);
  ASSERT_TRUE(latch.wait(1));
  EXPECT_EQ(t.runs, 2);
}

TEST_P(TaskSchedulerTest, WakeWhileRunningRunsAgain) {
  DoneLatch latch;
  TaskScheduler* scheduler = nullptr;
  ScriptedTask* self = nullptr;
  // The first turn is woken while it runs (as a completion arriving mid-turn would), then
  // reports Blocked: the wake must not be lost.
  ScriptedTask t([&](int run) {
    if (run == 1) {
      scheduler->wake(self);
      return Task::Step::Blocked;
    }
    return Task::Step::Done;
  });
  self = &t;
  TaskScheduler s(GetParam(), latch.callback());
  scheduler = &s;
  s.wake(&t);
  ASSERT_TRUE(latch.wait(1));
  EXPECT_EQ(t.runs, 2);
}

TEST_P(TaskSchedulerTest, ManyTasksAllFinish) {
  DoneLatch latch;
  std::vector<std::unique_ptr<ScriptedTask>> tasks;
  for (int i = 0; i < 50; ++i)
    tasks.push_back(std::make_unique<ScriptedTask>(
        [](int run) { return run < 3 ? Task::Step::Yield : Task::Step::Done; }));
  TaskScheduler s(GetParam(), latch.callback());
  for (auto& t : tasks) s.wake(t.get());
  ASSERT_TRUE(latch.wait(50));
  for (auto& t : tasks) EXPECT_EQ(t->runs, 3);
}

INSTANTIATE_TEST_SUITE_P(Threads, TaskSchedulerTest, testing::Values(1, 2, 4));

/// Two tasks that each wait (up to 2 s) until the other has started: they finish only when
/// they run at the same time, on two workers.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  int met = 0;  // tasks that saw the other start while they waited
  Task::Step arrive() {
    std::unique_lock lock(mu);
    ++started;
    cv.notify_all();
    if (cv.wait_for(lock, std::chrono::seconds(2), [&] { return started >= 2; })) ++met;
    return Task::Step::Done;
  }
};

TEST(TaskSchedulerSpinTest, TasksQueuedWhileAWorkerSpinsStillRunInParallel) {
  // A long spin: a push while a worker spins wakes no one, so when two pushes land in one spin
  // the worker that takes the first task must wake a sleeping one for the second, or the two
  // never meet. Whether both land in one spin is up to timing: tried 20 times.
  DoneLatch latch;
  TaskScheduler s(2, latch.callback(), std::chrono::seconds(30));
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // one worker spins, one sleeps
    Rendezvous r;
    ScriptedTask a([&](int) { return r.arrive(); });
    ScriptedTask b([&](int) { return r.arrive(); });
    s.wake(&a);
    s.wake(&b);
    ASSERT_TRUE(latch.wait(2 * (round + 1)));
    ASSERT_EQ(r.met, 2) << "round " << round << ": the second task waited for the first";
  }
}

TEST(TaskSchedulerSpinTest, ASpinningWorkerTakesAWakeAndTheDestructorEndsTheSpin) {
  DoneLatch latch;
  const auto t0 = std::chrono::steady_clock::now();
  {
    TaskScheduler s(1, latch.callback(), std::chrono::seconds(30));
    for (int i = 0; i < 3; ++i) {
      ScriptedTask t([](int) { return Task::Step::Done; });
      s.wake(&t);
      ASSERT_TRUE(latch.wait(i + 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the worker spins now
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10))
      << "the destructor waited for a 30 s spin";
}

TEST(TaskSchedulerSpinTest, AMalformedSpinTimeIsAnInvalidArgumentNamingTheVariable) {
  // spin_time() reads the variable once per process: the check runs in a fresh one.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const char* bad : {"fast", "-5", "20us", "5000000"}) {
    EXPECT_EXIT(
        {
          setenv("EMBER_SCHEDULER_SPIN_US", bad, 1);
          try {
            (void)TaskScheduler::spin_time();
          } catch (const InvalidArgument& e) {
            std::fprintf(stderr, "%s\n", e.what());
            std::_Exit(3);
          }
          std::_Exit(0);
        },
        testing::ExitedWithCode(3), std::string("EMBER_SCHEDULER_SPIN_US .*got '") + bad + "'")
        << bad;
  }
}

TEST(TaskSchedulerSpinTest, SpinTimeIsTwoHundredMicrosecondsOrTheEnvironments) {
  // Read once per process; this binary's environment leaves it unset unless a run sets it.
  const char* env = std::getenv("EMBER_SCHEDULER_SPIN_US");
  if (env != nullptr) GTEST_SKIP() << "EMBER_SCHEDULER_SPIN_US is set";
  const auto expected = std::thread::hardware_concurrency() > 1 ? std::chrono::microseconds(200)
                                                                : std::chrono::microseconds(0);
  EXPECT_EQ(TaskScheduler::spin_time(), expected);
}

}  // namespace
}  // namespace ember
