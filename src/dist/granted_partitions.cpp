// Taking granted partitions, asking for more one request at a time, settling at the end.
#include "dist/granted_partitions.h"

#include "dist/transport.h"

namespace ember::dist {

namespace {

/// Partitions a rank keeps in hand beside those it runs: when one ends the next starts at once,
/// while the request for another is on its way. One, so that a slow rank holds few partitions
/// that a faster rank could have run.
constexpr size_t kPartitionsInHand = 1;

}  // namespace

SuppliedPartition GrantedPartitions::take() {
  std::lock_guard lock(mu_);
  if (!ready_.empty()) {
    const int p = ready_.front();
    ready_.pop_front();
    ask();
    return {SuppliedPartition::Kind::Partition, p};
  }
  if (exhausted_ || settled_) return {};
  waiting_ = true;
  ask();
  return {SuppliedPartition::Kind::Later, -1};
}

int GrantedPartitions::peek() {
  std::lock_guard lock(mu_);
  return ready_.empty() ? -1 : ready_.front();
}

void GrantedPartitions::set_waker(std::function<void()> wake) {
  std::unique_lock lock(mu_);
  waker_.set(std::move(wake), lock);
}

void GrantedPartitions::granted(process::MessageReader& in) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    const auto n = in.get<uint32_t>();
    for (uint32_t i = 0; i < n; ++i) {
      const auto p = in.get<int32_t>();
      keys_[p] = in.get<uint64_t>();
      ready_.push_back(p);
    }
    if (in.get<uint8_t>() != 0) exhausted_ = true;
    asked_ = false;
    answered_.notify_all();
    if (waiting_ && (!ready_.empty() || exhausted_)) {
      waiting_ = false;
      wake = waker_.take_locked();
    } else {
      ask();
    }
  }
  waker_.call(wake, mu_);
}

uint64_t GrantedPartitions::key_of(int p) {
  std::lock_guard lock(mu_);
  return keys_.at(p);
}

std::map<int, uint64_t> GrantedPartitions::settle() {
  std::lock_guard lock(mu_);
  settled_ = true;
  return keys_;
}

std::map<int, uint64_t> GrantedPartitions::settle_late(const std::map<int, uint64_t>& settled) {
  std::unique_lock lock(mu_);
  answered_.wait(lock, [&] { return !asked_; });
  std::map<int, uint64_t> late;
  for (const auto& [p, key] : keys_)
    if (!settled.count(p)) late.emplace(p, key);
  return late;
}

void GrantedPartitions::ask() {
  if (asked_ || exhausted_ || settled_) return;
  const size_t wanted = kPartitionsInHand + (waiting_ ? 1 : 0);
  if (ready_.size() >= wanted) return;
  process::MessageWriter out;
  out.begin(process::Op::Want);
  out.put(done_key_);
  out.put(static_cast<uint32_t>(wanted - ready_.size()));
  transport_.send(0, kTagData, MessageBuffer(out.bytes()));
  asked_ = true;
}

}  // namespace ember::dist
