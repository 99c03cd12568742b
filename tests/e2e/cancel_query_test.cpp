// RunOptions::cancel: setting the flag from another thread ends a running query with
// ember::Error within a bound, in both isolations; a flag never set changes nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "ember/ember.h"

using namespace ember;
using Clock = std::chrono::steady_clock;

namespace {

/// Returns its argument after 20 ms: a query of many batches takes minutes.
struct SlowEcho {
  explicit SlowEcho(const InitArgs&) {}
  Column operator()(const Batch& in) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return in.column(0);
  }
};

EMBER_REGISTER_UDF(SlowEcho);

class CancelQuery : public ::testing::TestWithParam<Isolation> {};

TEST_P(CancelQuery, SettingTheFlagEndsTheQueryWithAnError) {
  const Udf slow =
      Udf::cls<SlowEcho>("slow").returns(int64()).batch_size(1).concurrency(2).isolation(
          GetParam());
  auto flag = std::make_shared<std::atomic<bool>>(false);
  RunOptions options;
  options.cancel = flag;
  std::thread canceller([flag] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    flag->store(true);
  });
  const auto start = Clock::now();
  try {
    range(100000, 4).select({slow(col("id"))}).collect(options);
    ADD_FAILURE() << "the query ran to its end";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  canceller.join();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST_P(CancelQuery, AFlagNeverSetChangesNothing) {
  const Udf slow = Udf::cls<SlowEcho>("slow").returns(int64()).batch_size(50).isolation(GetParam());
  RunOptions options;
  options.cancel = std::make_shared<std::atomic<bool>>(false);
  const Table t = range(200, 2).select({slow(col("id")).alias("id")}).collect(options);
  ASSERT_EQ(t.num_rows(), 200);
  EXPECT_EQ(t.column("id").value<int64_t>(199), 199);
}

INSTANTIATE_TEST_SUITE_P(BothIsolations, CancelQuery,
                         ::testing::Values(Isolation::Thread, Isolation::Process));

}  // namespace
