// The watch thread's loop: heartbeats out on time, silences reported once each.
#include "dist/rank_watch.h"

#include <cstring>

namespace ember::dist {

namespace {

std::string heartbeat_bytes(RankTimeout timeout) {
  std::string bytes(sizeof(double), '\0');
  std::memcpy(bytes.data(), &timeout.limit_seconds, sizeof(double));
  return bytes;
}

}  // namespace

void RankWatch::start(int ranks, std::vector<int> peers, RankTimeout timeout, double patience,
                      Sender send, SilenceHandler on_silent) {
  peers_ = std::move(peers);
  patience_ = std::max(1.0, patience);
  send_ = std::move(send);
  on_silent_ = std::move(on_silent);
  timeout_ = timeout;
  liveness_.emplace(ranks, peers_, RankLiveness::Clock::now());
  thread_ = std::thread([this] { run(); });
}

bool RankWatch::take(const Incoming& m) {
  if (!liveness_) return m.tag == kTagHeartbeat;
  liveness_->heard(m.source, RankLiveness::Clock::now());
  if (m.tag != kTagHeartbeat) return false;
  double limit = 0;
  if (m.source == 0 && m.control.size() == sizeof(double)) {
    std::memcpy(&limit, m.control.data(), sizeof(double));
    // Taken at the watch's next look (a fraction of a second): rank 0 sends its first
    // heartbeat as soon as its transport starts, long before any limit could pass.
    std::lock_guard lock(mu_);
    if (limit > 0) timeout_.limit_seconds = limit;
  }
  return true;
}

void RankWatch::unwatch(int rank) {
  if (liveness_) liveness_->unwatch(rank);
}

void RankWatch::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

RankTimeout RankWatch::timeout() {
  std::lock_guard lock(mu_);
  return timeout_;
}

void RankWatch::run() {
  using Clock = RankLiveness::Clock;
  Clock::time_point next_beat = Clock::now();
  for (;;) {
    const RankTimeout t = timeout();
    const auto interval = t.heartbeat_interval();
    const Clock::time_point now = Clock::now();
    if (now >= next_beat) {
      const std::string bytes = heartbeat_bytes(t);
      for (int peer : peers_) send_(peer, bytes);
      next_beat = now + interval;
    }
    const auto limit = std::chrono::duration_cast<std::chrono::nanoseconds>(t.limit() * patience_);
    while (auto silence = liveness_->overdue(now, limit)) {
      liveness_->unwatch(silence->rank);
      on_silent_(silence->rank, t.limit_seconds);
    }
    // A silence is noticed within a quarter interval of passing the limit.
    const auto look =
        std::min(interval / 4, std::chrono::nanoseconds(std::chrono::milliseconds(250)));
    std::unique_lock lock(mu_);
    if (wake_.wait_for(lock, std::min(look, next_beat - now), [&] { return stopping_; })) return;
  }
}

}  // namespace ember::dist
