// When this rank last heard from each other rank, and which of them have been silent too long:
// the bookkeeping behind ending a job whose rank stops answering (rank_watch.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace ember::dist {

/// Per rank, the time of its last message; the watched ranks' silence is measured from it.
/// The clock is the caller's (time points are passed in), so tests need no sleeps.
class RankLiveness {
 public:
  using Clock = std::chrono::steady_clock;

  /// A rank that has been silent for longer than the limit, and for how long.
  struct Silence {
    int rank = 0;
    std::chrono::nanoseconds silent{0};
  };

  /// `ranks` ranks, of which `watched` are watched; each counts as heard at `start`, so that a
  /// rank that never speaks is overdue one limit after the watch began.
  RankLiveness(int ranks, const std::vector<int>& watched, Clock::time_point start);

  /// A message from `rank` arrived at `at`. Any thread (the transport's); lock-free. Ranks out
  /// of range are ignored.
  void heard(int rank, Clock::time_point at);

  /// The watched rank silent the longest, if its silence at `now` is longer than `limit`. Any
  /// thread; calls may overlap with heard().
  std::optional<Silence> overdue(Clock::time_point now, std::chrono::nanoseconds limit) const;

  /// Stops watching `rank` (it was reported, or it said goodbye). Idempotent.
  void unwatch(int rank);

 private:
  int ranks_;
  /// Per rank: Clock ticks of its last message.
  std::unique_ptr<std::atomic<Clock::rep>[]> last_;
  std::unique_ptr<std::atomic<bool>[]> watched_;
};

}  // namespace ember::dist
