// The task state machine: Done, Yield, Blocked and wake, wake while running, on_done.
#include "exec/task_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

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

}  // namespace
}  // namespace ember
