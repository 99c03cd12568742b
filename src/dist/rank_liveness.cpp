// Last-heard times as clock ticks in atomics: the transport thread records every arrival, and
// must never wait on the watch thread that reads them.
#include "dist/rank_liveness.h"

namespace ember::dist {

RankLiveness::RankLiveness(int ranks, const std::vector<int>& watched, Clock::time_point start)
    : ranks_(ranks),
      last_(std::make_unique<std::atomic<Clock::rep>[]>(static_cast<size_t>(ranks))),
      watched_(std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(ranks))) {
  for (int r = 0; r < ranks; ++r) {
    last_[static_cast<size_t>(r)].store(start.time_since_epoch().count());
    watched_[static_cast<size_t>(r)].store(false);
  }
  for (int r : watched)
    if (r >= 0 && r < ranks) watched_[static_cast<size_t>(r)].store(true);
}

void RankLiveness::heard(int rank, Clock::time_point at) {
  if (rank < 0 || rank >= ranks_) return;
  auto& last = last_[static_cast<size_t>(rank)];
  const Clock::rep ticks = at.time_since_epoch().count();
  // Only forward: a caller with an older time point (another thread's clock read) must not
  // make a rank look more silent than it is.
  Clock::rep seen = last.load(std::memory_order_relaxed);
  while (seen < ticks && !last.compare_exchange_weak(seen, ticks, std::memory_order_relaxed)) {
  }
}

std::optional<RankLiveness::Silence> RankLiveness::overdue(Clock::time_point now,
                                                           std::chrono::nanoseconds limit) const {
  std::optional<Silence> worst;
  for (int r = 0; r < ranks_; ++r) {
    if (!watched_[static_cast<size_t>(r)].load(std::memory_order_relaxed)) continue;
    const Clock::time_point last(
        Clock::duration(last_[static_cast<size_t>(r)].load(std::memory_order_relaxed)));
    const auto silent = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last);
    if (silent > limit && (!worst || silent > worst->silent)) worst = Silence{r, silent};
  }
  return worst;
}

void RankLiveness::unwatch(int rank) {
  if (rank < 0 || rank >= ranks_) return;
  watched_[static_cast<size_t>(rank)].store(false);
}

}  // namespace ember::dist
