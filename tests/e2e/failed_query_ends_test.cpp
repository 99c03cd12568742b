// A failed query ends: whatever its pools are doing (a call that never returns, an actor still
// constructing, a pool no batch has reached), the query returns its error within the pools'
// teardown grace (5 s) plus a second, in both isolations.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "ember/ember.h"

using namespace ember;
using Clock = std::chrono::steady_clock;

namespace {

/// Set when a test is over, so that the thread actors it gave up stop hanging and end.
std::atomic<bool> release_hung_calls{false};

/// Returns its argument; a batch holding the row `hang_on` (or every batch when hang_on is -1)
/// never returns while the test runs.
class Hang {
 public:
  explicit Hang(const InitArgs& a) : hang_on_(a.get<int64_t>("hang_on")) {}
  Column operator()(const Batch& in) {
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (hang_on_ != -1 && in.column(0).value<int64_t>(i) != hang_on_) continue;
      const auto give_up = Clock::now() + std::chrono::minutes(2);
      while (!release_hung_calls.load() && Clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      break;
    }
    return in.column(0);
  }

 private:
  int64_t hang_on_;
};

/// Every call throws.
struct Fail {
  explicit Fail(const InitArgs&) {}
  Column operator()(const Batch&) { throw std::runtime_error("scoring failed"); }
};

/// Its constructor throws, as a UDF whose model file is missing does.
struct CannotLoad {
  explicit CannotLoad(const InitArgs&) { throw std::runtime_error("cannot load model"); }
  Column operator()(const Batch& in) { return in.column(0); }
};

EMBER_REGISTER_UDF(Hang);
EMBER_REGISTER_UDF(Fail);
EMBER_REGISTER_UDF(CannotLoad);

/// What the teardown grace promises: 5 s, plus a second, plus room for a loaded machine and a
/// sanitizer build (a regression hangs for minutes, far past this).
constexpr auto kEndsWithin = std::chrono::seconds(15);

/// Runs `df` on another thread and returns the error it ended with, and how long it took. A
/// query still running long after its bound is a hang: the test process reports it and exits,
/// rather than hang the suite (its threads could not be joined).
template <class E>
std::pair<std::string, Clock::duration> expect_error(const DataFrame& df) {
  const auto start = Clock::now();
  auto run = std::async(std::launch::async, [&df]() -> std::string {
    try {
      df.collect();
    } catch (const E& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("wrong error type: ") + e.what();
    }
    return "no error";
  });
  if (run.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "FATAL: a failed query was still running 60 s later\n");
    std::_Exit(1);
  }
  return {run.get(), Clock::now() - start};
}

class FailedQueryEnds : public testing::TestWithParam<Isolation> {
 protected:
  void SetUp() override { release_hung_calls = false; }
  void TearDown() override { release_hung_calls = true; }
  Udf udf(Udf u) const { return u.isolation(GetParam()).num_cpus(0.1); }
};

std::string name(const testing::TestParamInfo<Isolation>& info) {
  return info.param == Isolation::Thread ? "Thread" : "Process";
}

}  // namespace

TEST_P(FailedQueryEnds, WhileAnotherPoolsCallNeverReturns) {
  // Partition 0 hangs in `hang` on row 0; partition 1 reaches `fail`, which fails the query.
  // Each actor serves 4 calls at once, so that a batch of partition 1 queued on the actor
  // whose call hangs still runs: with one call per actor it would wait behind the hung call,
  // partition 1 would never reach `fail`, and the query would not fail at all (a UDF that can
  // hang needs a timeout).
  Udf hang = udf(Udf::cls<Hang>("hang")
                     .returns(int64())
                     .init_args({{"hang_on", int64_t{0}}})
                     .batch_size(10)
                     .concurrency(2)
                     .max_concurrency(4));
  Udf fail = udf(Udf::cls<Fail>("fail").returns(int64()).concurrency(1));
  DataFrame df = range(200, 2)
                     .with_column("y", hang(col("id")))
                     .where(col("y") >= lit(int64_t{100}))
                     .with_column("z", fail(col("y")));
  auto [error, took] = expect_error<UdfError>(df);
  EXPECT_NE(error.find("scoring failed"), std::string::npos) << error;
  EXPECT_LT(took, kEndsWithin);
}

TEST_P(FailedQueryEnds, AtOnceWhenAConstructorThrowsBehindABreaker) {
  // Every upstream call hangs, so no batch ever reaches the pool after the sort: only its
  // construction, which runs as the query starts, can fail the query.
  Udf hang = udf(Udf::cls<Hang>("hang")
                     .returns(int64())
                     .init_args({{"hang_on", int64_t{-1}}})
                     .batch_size(10)
                     .concurrency(1));
  Udf model = udf(Udf::cls<CannotLoad>("model").returns(int64()).concurrency(2));
  DataFrame df = range(100, 2)
                     .with_column("y", hang(col("id")))
                     .sort({SortKey{col("y")}})
                     .with_column("z", model(col("y")));
  auto [error, took] = expect_error<UdfError>(df);
  EXPECT_NE(error.find("cannot load model"), std::string::npos) << error;
  EXPECT_NE(error.find("udf 'model'"), std::string::npos) << error;
  EXPECT_LT(took, kEndsWithin);
}

INSTANTIATE_TEST_SUITE_P(Isolations, FailedQueryEnds,
                         testing::Values(Isolation::Thread, Isolation::Process), name);
