// Test UDF classes for actor pool tests: they count constructions, destructions, the threads
// they run on and overlapping calls, in process-wide atomics reset by each test; and the
// argument batches those tests dispatch.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ember/udf.h"

namespace ember::pool_test {

/// One int64 column "x" holding start, start + 1, ..., start + n - 1.
inline Batch numbers(int64_t start, int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + i);
  return Batch(Schema({{"x", int64()}}), {Column::from(std::move(v))});
}

struct Counts {
  std::atomic<int> constructed{0}, destroyed{0}, wrong_thread{0}, overlapping{0};
  std::array<std::atomic<int>, 8> served{};
  void reset() {
    constructed = destroyed = wrong_thread = overlapping = 0;
    for (auto& s : served) s = 0;
  }
};
inline Counts counts;

/// A gate calls can wait at; waits give up after 30 s so a broken test fails, never hangs.
class Gate {
 public:
  void reset() {
    std::lock_guard lock(mu_);
    open_ = false;
    entered_ = 0;
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void enter_and_wait() {
    std::unique_lock lock(mu_);
    ++entered_;
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return open_; });
  }
  bool wait_entered(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return entered_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int entered_ = 0;
};
inline Gate gate;

/// Returns 2x+1 for an int64 column x. Init args pick misbehaviours: "fail_actor" (throw from
/// that actor's constructor), "init_gate" (the constructor waits at the gate), "mode"
/// ("throw", "short", "utf8", "gate"), "sleep_us".
class Doubler {
 public:
  Doubler(const InitArgs& args, const ActorContext& ctx)
      : id_(ctx.actor_id), owner_(std::this_thread::get_id()) {
    if (args.has("init_gate")) gate.enter_and_wait();
    if (args.has("fail_actor") && args.get<int64_t>("fail_actor") == ctx.actor_id)
      throw std::runtime_error("no dictionary");
    if (args.has("mode")) mode_ = args.get<std::string>("mode");
    if (args.has("sleep_us")) sleep_us_ = args.get<int64_t>("sleep_us");
    counts.constructed++;
  }
  ~Doubler() {
    counts.destroyed++;
    if (std::this_thread::get_id() != owner_) counts.wrong_thread++;
  }
  Doubler(const Doubler&) = delete;
  Doubler& operator=(const Doubler&) = delete;

  Column operator()(const Batch& in) {
    if (in_call_.exchange(true)) counts.overlapping++;
    if (std::this_thread::get_id() != owner_) counts.wrong_thread++;
    counts.served[static_cast<size_t>(id_)]++;
    if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    if (mode_ == "gate") gate.enter_and_wait();
    in_call_ = false;
    if (mode_ == "throw") throw std::runtime_error("bad row");
    if (mode_ == "utf8") return Column::from(std::vector<std::string>(in.num_rows(), "x"));
    const Column& x = in.column(0);
    std::vector<int64_t> out;
    int64_t n = mode_ == "short" ? in.num_rows() - 1 : in.num_rows();
    for (int64_t i = 0; i < n; ++i) out.push_back(2 * x.value<int64_t>(i) + 1);
    return Column::from(std::move(out));
  }

 private:
  int id_;
  std::thread::id owner_;
  std::string mode_;
  int64_t sleep_us_ = 0;
  std::atomic<bool> in_call_{false};
};

}  // namespace ember::pool_test
