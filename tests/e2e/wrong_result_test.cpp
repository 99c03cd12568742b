// A UDF that returns a result of the wrong length fails with the same UdfError in both
// isolations; in a worker process it is the UDF's error, never the worker's crash.
#include <gtest/gtest.h>

#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Returns a default-constructed Column: no rows, no buffers.
struct ReturnsNothing {
  explicit ReturnsNothing(const InitArgs&) {}
  Column operator()(const Batch&) { return Column(); }
};
EMBER_REGISTER_UDF(ReturnsNothing);

Udf returns_nothing(Isolation isolation) {
  return Udf::cls<ReturnsNothing>("returns_nothing")
      .returns(int64())
      .batch_size(10)
      .num_cpus(0.1)
      .isolation(isolation);
}

std::string error_of(Isolation isolation) {
  try {
    range(30).with_column("y", returns_nothing(isolation)(col("id"))).collect();
  } catch (const UdfError& e) {
    return e.what();
  }
  return "no UdfError";
}

}  // namespace

TEST(WrongResult, DefaultColumnIsTheSameUdfErrorInBothIsolations) {
  const std::string thread = error_of(Isolation::Thread);
  const std::string process = error_of(Isolation::Process);
  EXPECT_NE(
      thread.find("udf 'returns_nothing' returned 0 rows of int64, expected 10 rows of int64"),
      std::string::npos)
      << thread;
  EXPECT_EQ(process, thread);
}

TEST(WrongResult, UnderOnErrorNullTheWorkerIsNotRestarted) {
  QueryResult r =
      range(300)
          .with_column("y", returns_nothing(Isolation::Process).on_error(OnError::Null)(col("id")))
          .execute();
  ASSERT_EQ(r.table.num_rows(), 300);
  EXPECT_EQ(r.table.column("y").null_count(), 300);
  // One worker, constructed once: a wrong result is no crash to recover from.
  EXPECT_EQ(r.stats.udfs.at(0).inits, 1);
}
