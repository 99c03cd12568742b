// Once a batch of a process-isolated pool has failed for good (its retries spent), the query is
// lost: no batch still queued may start a worker or be retried. Counted from the workers' own
// log of constructions and calls, for 1 and 2 actors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "test_udfs.h"
#include "udf/actor_pool.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

/// Lines of the SegfaultLogging log: constructions, and the first value of each call's batch.
struct WorkerLog {
  int starts = 0;
  std::vector<int64_t> calls;
};

WorkerLog read_log(const std::string& path) {
  WorkerLog log;
  std::istringstream in(read_file(path));
  std::string word;
  int64_t value = 0;
  while (in >> word >> value) {
    if (word == "start") ++log.starts;
    if (word == "call") log.calls.push_back(value);
  }
  return log;
}

std::string error_text(const CallResult& r) {
  if (!std::holds_alternative<std::exception_ptr>(r)) return "";
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(r));
  } catch (const UdfError& e) {
    return std::string("UdfError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
}

class FailedProcessPool : public testing::TestWithParam<int> {};

TEST_P(FailedProcessPool, QueuedBatchesStartNoWorkerAndFailWithTheFirstError) {
  const int actors = GetParam();
  constexpr int kMaxRetries = 2;
  constexpr int kBatches = 8;
  TempDir dir;
  auto spec = std::make_shared<UdfSpec>(*process_spec<SegfaultLogging>(
      "segv", "SegfaultLogging", int64(), {{"log", dir.file("log")}}, kMaxRetries));
  // Retries due at once go before queued work, so each actor runs one batch's whole chain of
  // attempts before it takes another (with a backoff, the next batches would run meanwhile).
  spec->retry_initial = spec->retry_max = std::chrono::milliseconds(0);
  std::vector<ActorContext> contexts;
  for (int a = 0; a < actors; ++a) contexts.push_back(actor_context(a));
  ActorPool pool(spec, contexts);

  std::mutex mu;
  std::condition_variable cv;
  std::map<int, CallResult> results;
  // Queued before start, so every actor's mailbox and the backlog hold work when the first
  // batch gives up.
  for (int b = 0; b < kBatches; ++b) {
    pool.dispatch(int_batch({b * 100, b * 100 + 1}), [&, b](CallResult r) {
      std::lock_guard lock(mu);
      results.emplace(b, std::move(r));
      cv.notify_all();
    });
  }
  pool.start();
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(90),
                            [&] { return static_cast<int>(results.size()) == kBatches; }));
  }
  pool.stop();

  // A batch in flight on each actor fails with its own error (the worker's pid differs); every
  // batch still queued fails with the error of the batch that gave up first.
  std::map<std::string, int> errors;
  for (const auto& [b, r] : results) ++errors[error_text(r)];
  int most_shared = 0;
  for (const auto& [e, n] : errors) {
    EXPECT_EQ(e.rfind("UdfError: udf 'segv' actor #", 0), 0u) << e;
    // The batch that failed first spent its retries; a batch in flight on another actor stops
    // retrying once the pool has failed, so it may have given up after fewer.
    EXPECT_TRUE(std::regex_search(
        e, std::regex(R"(was killed by signal 11 \(SIGSEGV\) while running a batch of 2 rows; )"
                      R"(gave up after (1 retry|2 retries) \(max_retries = 2\))")))
        << e;
    most_shared = std::max(most_shared, n);
  }
  EXPECT_LE(static_cast<int>(errors.size()), actors);
  EXPECT_GE(most_shared, kBatches - (actors - 1))
      << "queued batches carry the error of the batch that failed first";

  // Every worker started was handed exactly one batch, and died of it. The first actor to give
  // up started 1 + max_retries workers. Every other actor had started one at pool start and had
  // a batch in flight; it may finish the chain it had begun (at most 1 + max_retries workers),
  // but starts no worker once the pool has failed and takes no queued batch. So the bound is
  // actors + max_retries <= starts <= actors x (1 + max_retries), exact for one actor.
  const WorkerLog log = read_log(dir.file("log"));
  EXPECT_EQ(static_cast<int>(log.calls.size()), log.starts);
  EXPECT_GE(log.starts, actors + kMaxRetries);
  EXPECT_LE(log.starts, actors * (1 + kMaxRetries));
  if (actors == 1) {
    EXPECT_EQ(log.starts, 1 + kMaxRetries);
  }
  const std::set<int64_t> batches_run(log.calls.begin(), log.calls.end());
  EXPECT_LE(static_cast<int>(batches_run.size()), actors)
      << "no queued batch may reach a worker after the first gave up";
  EXPECT_EQ(pool.stats().inits, log.starts);
  EXPECT_EQ(pool.stats().batches, 0);
  EXPECT_TRUE(all_children(::getpid()).empty());
}

INSTANTIATE_TEST_SUITE_P(Actors, FailedProcessPool, testing::Values(1, 2));

TEST(FailedProcessPool, WorkDispatchedAfterTheFailureFailsAtOnce) {
  TempDir dir;
  auto spec = std::make_shared<UdfSpec>(*process_spec<SegfaultLogging>(
      "segv", "SegfaultLogging", int64(), {{"log", dir.file("log")}}, 1));
  spec->retry_initial = spec->retry_max = std::chrono::milliseconds(0);
  ActorPool pool(spec, {actor_context(0)});
  pool.start();
  std::mutex mu;
  std::condition_variable cv;
  std::optional<CallResult> first;
  pool.dispatch(int_batch({7}), [&](CallResult r) {
    std::lock_guard lock(mu);
    first = std::move(r);
    cv.notify_all();
  });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return first.has_value(); }));
  }
  const std::string failure = error_text(*first);
  ASSERT_NE(failure, "");
  // `done` has been called; in_flight() drops once it has also returned.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (pool.in_flight() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // `done` runs on this thread, before dispatch() returns: nothing was queued or started.
  std::optional<CallResult> late;
  pool.dispatch(int_batch({8}), [&](CallResult r) { late = std::move(r); });
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(error_text(*late), failure);
  EXPECT_EQ(pool.in_flight(), 0);
  pool.stop();
  const WorkerLog log = read_log(dir.file("log"));
  EXPECT_EQ(log.starts, 2);
  EXPECT_EQ(log.calls, (std::vector<int64_t>{7, 7}));
}

}  // namespace
}  // namespace ember::test
