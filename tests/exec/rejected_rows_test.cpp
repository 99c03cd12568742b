// Rejected rows move between ranks by partition: what a worker rank takes out for a partition
// is what rank 0 adopts, in input order among the rows recorded there, and rank 0 counts every
// rank's rows against max_failed_rows.
#include "exec/rejected_rows.h"

#include <gtest/gtest.h>

#include "ember/error.h"
#include "exec_test_kit.h"

namespace ember::test {
namespace {

FailurePolicy skip_policy(int64_t max_failed_rows) {
  auto spec = std::make_shared<UdfSpec>(*times_ten(1, 10));
  spec->on_error = OnError::Skip;
  spec->max_failed_rows = max_failed_rows;
  return FailurePolicy(*spec);
}

TEST(RejectedRows, APartitionsRowsTakenOutOnOneRankAreAdoptedInOrderOnAnother) {
  RejectedRows worker(skip_policy(100));
  worker.add(3, 1, numbers(31, 1), {"bad 31"});
  worker.add(3, 0, numbers(30, 2), {"bad 30", "bad 30b"});
  worker.add(4, 0, numbers(40, 1), {"bad 40"});
  const auto taken = worker.take_partition(3);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].first, 0);  // by chunk
  EXPECT_EQ(taken[1].first, 1);
  EXPECT_EQ(worker.count(), 4);            // still counted where they failed
  EXPECT_EQ(worker.batches().size(), 1u);  // partition 4's are left

  RejectedRows rank0(skip_policy(100));
  rank0.add(0, 0, numbers(0, 1), {"bad 0"});
  for (const auto& [chunk, rows] : taken) rank0.adopt(3, chunk, rows);
  EXPECT_EQ(rank0.count(), 4);
  std::vector<std::string> errors;
  for (const Batch& b : rank0.batches())
    for (int64_t i = 0; i < b.num_rows(); ++i)
      errors.emplace_back(b.column(1).value<std::string_view>(i));
  EXPECT_EQ(errors, (std::vector<std::string>{"bad 0", "bad 30", "bad 30b", "bad 31"}));
}

TEST(RejectedRows, AdoptedRowsCountAgainstTheLimit) {
  RejectedRows worker(skip_policy(100));
  worker.add(1, 0, numbers(10, 3), {"a", "b", "c"});
  RejectedRows rank0(skip_policy(3));
  rank0.add(0, 0, numbers(0, 1), {"first"});
  auto taken = worker.take_partition(1);
  ASSERT_EQ(taken.size(), 1u);
  try {
    rank0.adopt(1, 0, taken[0].second);
    FAIL() << "4 failed rows passed a limit of 3";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("times_ten"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::test
