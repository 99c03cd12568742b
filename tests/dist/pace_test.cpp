// The pacing rule rank 0 applies to every rank, itself included: how many partitions a rank
// may hold given how its pace compares with the leader's.
#include <gtest/gtest.h>

#include <limits>

#include "dist/cluster_run_state.h"

namespace ember::dist {
namespace {

constexpr int kAny = std::numeric_limits<int>::max();

Pace pace(int most_held, int64_t ended) {
  Pace p;
  p.most_held = most_held;
  p.ended = ended;
  return p;
}

TEST(PacedHoldLimit, ARankThatLeadsOrHasEndedNoneHoldsAnyNumber) {
  EXPECT_EQ(paced_hold_limit(pace(4, 0), 10), kAny) << "no pace known yet";
  EXPECT_EQ(paced_hold_limit(pace(4, 10), 10), kAny) << "the leader itself";
  EXPECT_EQ(paced_hold_limit(pace(4, 12), 10), kAny) << "ahead of the others";
}

TEST(PacedHoldLimit, ASlowerRankHoldsItsShareOfTheMostItHeldAtLeastOne) {
  EXPECT_EQ(paced_hold_limit(pace(4, 5), 10), 2) << "half the pace: half of 4";
  EXPECT_EQ(paced_hold_limit(pace(4, 6), 10), 3) << "2.4 rounds up";
  EXPECT_EQ(paced_hold_limit(pace(4, 2), 10), 1) << "a fifth of the pace: 0.8, at least 1";
  EXPECT_EQ(paced_hold_limit(pace(4, 1), 100), 1);
  EXPECT_EQ(paced_hold_limit(pace(5, 4), 10), 2) << "exactly 2.0 stays 2";
}

}  // namespace
}  // namespace ember::dist
