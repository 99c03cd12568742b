// A process actor's worker: where it runs, how often the UDF is constructed, what it sees
// (CUDA_VISIBLE_DEVICES), how failures to construct or to call come back, and teardown.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "test_udfs.h"
#include "udf/actor.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

std::string text_at(const Column& c, int64_t i) {
  return std::string(c.value<std::string_view>(i));
}

TEST(ProcessActor, RunsTheUdfInAnotherProcessConstructedOnce) {
  auto pid_actor = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "pid"}}), actor_context(0));
  auto count_actor = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "constructions"}}),
      actor_context(1));
  pid_actor->start();
  count_actor->start();
  const Column pids = pid_actor->call(int_batch({1, 2, 3, 4, 5}));
  ASSERT_EQ(pids.size(), 5);
  const pid_t worker = std::atoi(text_at(pids, 0).c_str());
  EXPECT_NE(worker, ::getpid());
  EXPECT_GT(worker, 0);
  for (int64_t i = 1; i < 5; ++i) EXPECT_EQ(text_at(pids, i), text_at(pids, 0));
  const auto kids = live_children(::getpid());
  EXPECT_NE(std::find(kids.begin(), kids.end(), worker), kids.end());
  for (int round = 0; round < 3; ++round) {
    const Column n = count_actor->call(int_batch({7, 8}));
    EXPECT_EQ(text_at(n, 0), "1") << "one construction per worker, whatever the call count";
  }
  EXPECT_EQ(pid_actor->call(int_batch({9})).value<std::string_view>(0), text_at(pids, 0));
  EXPECT_EQ(pid_actor->inits(), 1);
  EXPECT_EQ(count_actor->inits(), 1);
  pid_actor->stop();
  count_actor->stop();
  pid_actor->stop();  // idempotent
  EXPECT_TRUE(process_dead(worker));
  EXPECT_TRUE(all_children(::getpid()).empty()) << "no worker left, not even a zombie";
}

TEST(ProcessActor, CudaVisibleDevicesIsTheActorsGpus) {
  auto cuda =
      make_process_actor(process_spec<Probe>("probe", "Probe", utf8(), {{"report", "cuda"}}),
                         actor_context(0, {1, 3}));
  auto ctx =
      make_process_actor(process_spec<Probe>("probe", "Probe", utf8(), {{"report", "ctx_gpus"}}),
                         actor_context(0, {1, 3}));
  auto none = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "cuda"}}), actor_context(2));
  auto actor_id = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "ctx_actor"}}), actor_context(2));
  for (auto* a : {cuda.get(), ctx.get(), none.get(), actor_id.get()}) a->start();
  EXPECT_EQ(text_at(cuda->call(int_batch({0})), 0), "1,3");
  EXPECT_EQ(text_at(ctx->call(int_batch({0})), 0), "1,3");
  EXPECT_EQ(text_at(none->call(int_batch({0})), 0), "") << "set, and empty: no GPU for this actor";
  EXPECT_EQ(text_at(actor_id->call(int_batch({0})), 0), "2");
  for (auto* a : {cuda.get(), ctx.get(), none.get(), actor_id.get()}) a->stop();
}

TEST(ProcessActor, ConstructorFailureComesBackWithItsMessage) {
  auto actor = make_process_actor(
      process_spec<FailingInit>("loader", "FailingInit", int64(), {{"path", "/nope/model.bin"}}),
      actor_context(0));
  try {
    actor->start();
    FAIL() << "start() should throw";
  } catch (const UdfError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("udf 'loader' actor #0 failed to initialise"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot open model file '/nope/model.bin'"), std::string::npos) << m;
  }
  EXPECT_EQ(actor->inits(), 0);
  actor->stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessActor, ClassMustBeRegistered) {
  auto unnamed = process_spec<AddOne>("anon", "", int64());
  EXPECT_THROW(make_process_actor(unnamed, actor_context(0))->start(), InvalidArgument);
  auto unknown =
      make_process_actor(process_spec<AddOne>("ghost", "NoSuchClass", int64()), actor_context(0));
  try {
    unknown->start();
    FAIL() << "start() should throw";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("EMBER_REGISTER_UDF(NoSuchClass)"), std::string::npos)
        << e.what();
  }
  unknown->stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessActor, CallExceptionIsUdfErrorAndTheWorkerLivesOn) {
  auto actor = make_process_actor(process_spec<RejectNegative>("reject", "RejectNegative", int64()),
                                  actor_context(0));
  actor->start();
  const auto before = live_children(::getpid());
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(actor->call(int_batch({1, 2})).value<int64_t>(1), 3);
  try {
    actor->call(int_batch({5, -1}, "n"));
    FAIL() << "call() should throw";
  } catch (const UdfError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("udf 'reject'"), std::string::npos) << m;
    EXPECT_NE(m.find("negative input at row 1"), std::string::npos) << m;
    EXPECT_NE(m.find("n: int64"), std::string::npos) << m;
    EXPECT_NE(m.find("2 rows"), std::string::npos) << m;
  }
  const Column after = actor->call(int_batch({7}));
  EXPECT_EQ(after.value<int64_t>(0), 8);
  EXPECT_EQ(live_children(::getpid()), before) << "same worker, not a restart";
  EXPECT_EQ(actor->inits(), 1);
  actor->stop();
}

TEST(ProcessActor, StopDestroysTheUdfInTheWorkerAndReapsIt) {
  TempDir dir;
  auto actor = make_process_actor(
      process_spec<PidFile>("pidfile", "PidFile", utf8(), {{"dir", dir.path()}}), actor_context(0));
  actor->start();
  const pid_t worker = std::atoi(text_at(actor->call(int_batch({1})), 0).c_str());
  EXPECT_EQ(read_file(dir.file("worker-0.pid")), std::to_string(worker));
  actor->stop();
  EXPECT_TRUE(std::filesystem::exists(dir.file("destroyed-" + std::to_string(worker))))
      << "the destructor is the teardown hook and runs in the worker";
  EXPECT_TRUE(process_dead(worker));
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessActor, NoSharedMemoryFileOutlivesSuccessOrFailure) {
  const auto before = shm_entries();
  {
    auto ok = make_process_actor(process_spec<AddOne>("add", "AddOne", int64()), actor_context(0));
    ok->start();
    ok->call(int_batch(std::vector<int64_t>(100000, 1)));
    ok->stop();
    auto bad = make_process_actor(process_spec<RejectNegative>("reject", "RejectNegative", int64()),
                                  actor_context(0));
    bad->start();
    EXPECT_THROW(bad->call(int_batch({-1})), UdfError);
    auto crash = make_process_actor(process_spec<AbortAlways>("abort", "AbortAlways", int64()),
                                    actor_context(1));
    crash->start();
    EXPECT_THROW(crash->call(int_batch({1})), UdfError);
  }  // destruction stops the actors
  EXPECT_EQ(shm_entries(), before);
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessActor, WithoutEmberInitTheDriverGetsAnErrorNotAHang) {
  const int status =
      run_helper_test("ProcessHelper.DISABLED_StartWithoutInit", {{"EMBER_TEST_SKIP_INIT", "1"}});
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the helper's output above";
}

// Run in a child process whose main() skipped ember::init.
TEST(ProcessHelper, DISABLED_StartWithoutInit) {
  auto actor = make_process_actor(process_spec<AddOne>("add", "AddOne", int64()), actor_context(0));
  try {
    actor->start();
    FAIL() << "start() should throw";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "Isolation::Process needs ember::init(argc, argv) at the top of main()"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(all_children(::getpid()).empty()) << "no worker was started";
}

}  // namespace
}  // namespace ember::test
