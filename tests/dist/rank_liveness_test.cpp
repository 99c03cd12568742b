// The liveness bookkeeping on a made-up clock (no sleeps), and the watch thread with a limit
// of a fraction of a second: heartbeats go out, a silent rank is reported once, a talking one
// never.
#include "dist/rank_liveness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "dist/rank_watch.h"

namespace ember::dist {
namespace {

using Clock = RankLiveness::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RankLiveness, SilenceCountsFromTheLastMessageOrTheStart) {
  const Clock::time_point t0{};
  RankLiveness live(3, {1, 2}, t0);
  EXPECT_FALSE(live.overdue(t0 + seconds(3), seconds(3)));  // not longer than the limit
  live.heard(1, t0 + seconds(2));
  auto late = live.overdue(t0 + seconds(4), seconds(3));
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rank, 2);  // never spoke: silent since the start
  EXPECT_EQ(late->silent, seconds(4));
  live.heard(2, t0 + seconds(4));
  EXPECT_FALSE(live.overdue(t0 + seconds(5), seconds(3)));
  late = live.overdue(t0 + seconds(6), seconds(3));
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rank, 1);
}

TEST(RankLiveness, ReportsTheLongestSilentWatchedRank) {
  const Clock::time_point t0{};
  RankLiveness live(4, {1, 2, 3}, t0);
  live.heard(1, t0 + seconds(1));
  live.heard(3, t0 + seconds(2));
  live.heard(0, t0 + seconds(9));  // unwatched: never reported, whatever its silence
  auto late = live.overdue(t0 + seconds(10), seconds(5));
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rank, 2);
  live.unwatch(2);
  late = live.overdue(t0 + seconds(10), seconds(5));
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rank, 1);
  live.unwatch(1);
  live.unwatch(1);  // idempotent
  EXPECT_EQ(live.overdue(t0 + seconds(10), seconds(5))->rank, 3);
}

TEST(RankLiveness, AnOlderTimeNeverMakesARankMoreSilent) {
  const Clock::time_point t0{};
  RankLiveness live(2, {1}, t0);
  live.heard(1, t0 + seconds(8));
  live.heard(1, t0 + seconds(7));
  live.heard(5, t0 + seconds(7));  // out of range: ignored
  EXPECT_FALSE(live.overdue(t0 + seconds(10), seconds(3)));
}

TEST(RankWatch, HeartbeatsGoOutAndOnlyTheSilentRankIsReported) {
  std::mutex mu;
  std::vector<int> beats, silent;
  RankWatch watch;
  // 0.2 s limit: heartbeats every 50 ms; rank 1 talks every 20 ms, rank 2 never.
  watch.start(
      3, {1, 2}, RankTimeout{0.2}, 1,
      [&](int dest, std::string) {
        std::lock_guard lock(mu);
        beats.push_back(dest);
      },
      [&](int rank, double limit) {
        EXPECT_EQ(limit, 0.2);
        std::lock_guard lock(mu);
        silent.push_back(rank);
      });
  const auto start = Clock::now();
  Incoming from1;
  from1.source = 1;
  from1.tag = kTagControl;
  while (Clock::now() - start < milliseconds(600)) {
    EXPECT_FALSE(watch.take(from1));  // not a heartbeat: for the caller to handle
    std::this_thread::sleep_for(milliseconds(20));
  }
  watch.stop();
  watch.stop();  // idempotent
  std::lock_guard lock(mu);
  EXPECT_EQ(silent, std::vector<int>{2});  // reported once, after 0.2 s
  EXPECT_GE(beats.size(), 8u);             // about 12 rounds of 2 in 0.6 s
}

TEST(RankWatch, AWorkerAdoptsRankZerosLimit) {
  std::atomic<int> reported{0};
  RankWatch watch;
  // Its own limit is a minute; rank 0's heartbeat says 0.1 s, and rank 0 then falls silent.
  watch.start(
      2, {0}, RankTimeout{60}, 1, [](int, std::string) {},
      [&](int rank, double limit) {
        EXPECT_EQ(rank, 0);
        EXPECT_EQ(limit, 0.1);
        ++reported;
      });
  Incoming beat;
  beat.source = 0;
  beat.tag = kTagHeartbeat;
  const double limit = 0.1;
  beat.control.assign(reinterpret_cast<const char*>(&limit), sizeof limit);
  EXPECT_TRUE(watch.take(beat));
  const auto start = Clock::now();
  while (reported == 0 && Clock::now() - start < seconds(5))
    std::this_thread::sleep_for(milliseconds(10));
  watch.stop();
  EXPECT_EQ(reported, 1);
}

}  // namespace
}  // namespace ember::dist
