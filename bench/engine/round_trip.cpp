// Ping-pong timing through an ActorPool and through a bare thread pair.
#include "round_trip.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "stopwatch.h"
#include "udf/actor_pool.h"

namespace ember::bench {
namespace {

constexpr auto kTimeout = std::chrono::milliseconds(60'000);

}  // namespace

void Completion::signal() {
  {
    std::lock_guard lock(mu_);
    set_ = true;
  }
  cv_.notify_one();
}

bool Completion::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return set_; })) return false;
  set_ = false;
  return true;
}

std::vector<double> pool_round_trips_us(ActorPool& pool, const Batch& args, int rounds) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(rounds));
  Completion done;
  std::atomic<int64_t> result_rows{-1};
  for (int i = 0; i < rounds; ++i) {
    Stopwatch w;
    pool.dispatch(args, [&](CallResult r) {
      const Column* c = std::get_if<Column>(&r);
      result_rows.store(c ? c->size() : -1, std::memory_order_relaxed);
      done.signal();
    });
    if (!done.wait(kTimeout)) throw std::runtime_error("an actor round trip took over 60 s");
    out.push_back(w.seconds() * 1e6);
    if (result_rows.load(std::memory_order_relaxed) != args.num_rows())
      throw std::runtime_error("an actor call failed or returned the wrong number of rows");
  }
  return out;
}

std::vector<double> thread_round_trips_us(int rounds) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(rounds));
  Completion ping, pong;
  std::atomic<bool> quit{false};
  std::thread peer([&] {
    while (!quit.load(std::memory_order_relaxed)) {
      if (ping.wait(std::chrono::milliseconds(100))) pong.signal();
    }
  });
  bool timed_out = false;
  for (int i = 0; i < rounds && !timed_out; ++i) {
    Stopwatch w;
    ping.signal();
    timed_out = !pong.wait(kTimeout);
    out.push_back(w.seconds() * 1e6);
  }
  quit = true;
  peer.join();
  if (timed_out) throw std::runtime_error("a thread round trip took over 60 s");
  return out;
}

}  // namespace ember::bench
