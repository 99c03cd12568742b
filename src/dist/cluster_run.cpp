// A spread query on rank 0: the orders sent to the worker ranks, the queue of partitions handed
// out as ranks ask (paced), and idle ranks' actors lent to the others; what the ranks send
// back is taken in cluster_run_intake.cpp.
#include "dist/cluster_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/cluster_run_state.h"
#include "dist/piece_message.h"
#include "dist/pipeline_message.h"
#include "dist/pool_service.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"
#include "dist/share_exchange.h"
#include "dist/storage_message.h"

namespace ember::dist {

/// Partitions set aside for each rank at the start (the first ranks x this many, round robin),
/// before any rank asks: no rank waits for a round trip to begin, and a query with few
/// partitions still runs on every rank rather than on rank 0, which starts first. The rest are
/// handed out as the ranks ask for them.
constexpr int kFirstPartitionsPerRank = 2;

/// How many partitions each rank is handed at the start, out of `n`.
int first_partitions_per_rank(int n, int ranks) {
  return std::min(kFirstPartitionsPerRank, (n + ranks - 1) / ranks);
}

bool states_to_rank_0() {
  const char* v = std::getenv("EMBER_DIST_NO_EXCHANGE");
  return v != nullptr && *v == '1';
}

std::string ClusterRun::order(uint64_t done, int r, const PhysicalPlan& plan,
                              const std::vector<std::vector<uint64_t>>& own,
                              const std::string& pipeline, const SpreadOutput& output) {
  process::MessageWriter out;
  out.begin(process::Op::Init);
  out.put(id_);
  out.put(done);
  out.put(static_cast<int32_t>(r));
  out.put(static_cast<uint32_t>(plan.pools.size()));
  for (size_t i = 0; i < plan.pools.size(); ++i) {
    // Local first: a rank that hosts actors of the pool calls them directly (its batches
    // never cross the network); a rank without any goes through rank 0's pool, with as
    // many proxies as the pool has actors, so that it can keep each of them busy.
    out.put(static_cast<int32_t>(own[i].empty() ? std::max(1, plan.pools[i]->concurrency) : 0));
    out.put(static_cast<uint32_t>(own[i].size()));
    for (uint64_t key : own[i]) out.put(key);
  }
  out.put_string(pipeline);
  out.put(static_cast<uint8_t>(output.files));
  out.put(static_cast<uint8_t>(ranges_));
  out.put(static_cast<uint8_t>(output.format));
  out.put(static_cast<uint8_t>(output.parquet.compression));
  out.put(output.parquet.row_group_rows);
  out.put(static_cast<uint8_t>(output.arrow.compression));
  // Absolute: a rank's working directory need not be rank 0's.
  out.put_string(output.files || ranges_ ? std::filesystem::absolute(output.dir).string() : "");
  out.put(output.memory_budget_bytes);
  // A resumable write with checkpoints: where the unfinished partitions resume, on any rank.
  out.put(output.checkpoint_rows);
  put_unfinished(out, output.unfinished);
  out.put_string(output.object_store);
  put_storage(out, output.storage);
  // With an exchange, each rank merges a share of every partition's state: this many.
  out.put(static_cast<uint8_t>(exchange_));
  out.put(static_cast<int32_t>(partitions_));
  out.put(static_cast<int32_t>(output.first_pool));
  return out.bytes();
}

void ClusterRun::grant(int r, const std::vector<int>& partitions, bool last) {
  process::MessageWriter out;
  out.begin(process::Op::Grant);
  out.put(id_);
  out.put(static_cast<uint32_t>(partitions.size()));
  for (int p : partitions) {
    // A key opened for a rank that is lost already gets that loss at once: the query fails.
    const uint64_t key = reply_key_open_into(box_, r);
    arriving_[key] = Arriving{p, r, nullptr, false};
    out.put(static_cast<int32_t>(p));
    out.put(key);
  }
  out.put(static_cast<uint8_t>(last));
  if (!partitions.empty()) {
    handed_.fetch_add(static_cast<int64_t>(partitions.size()));
    Pace& pace = pace_[static_cast<size_t>(r)];
    pace.held += static_cast<int>(partitions.size());
    pace.most_held = std::max(pace.most_held, pace.held);
  }
  transport_.send(r, kTagQuery, out.bytes());
}

int paced_hold_limit(const Pace& pace, int64_t lead) {
  if (pace.ended == 0 || pace.ended >= lead) return std::numeric_limits<int>::max();
  // Every count runs from the query's start: their ratio is the ranks' ratio of paces.
  const auto share = static_cast<double>(pace.most_held) * static_cast<double>(pace.ended) /
                     static_cast<double>(lead);
  return std::max(1, static_cast<int>(std::ceil(share - 1e-9)));
}

SuppliedPartition ClusterRun::take_own() {
  std::lock_guard lock(mu_);
  const bool set_aside = !own_first_.empty();
  std::deque<int>& from = set_aside ? own_first_ : queue_;
  if (cancelled_ || from.empty()) return {};
  const int64_t lead = std::max(own_pace_.ended, workers_lead_.load(std::memory_order_relaxed));
  if (!set_aside && own_pace_.held >= paced_hold_limit(own_pace_, lead)) {
    own_waiting_ = true;  // own_pace_.held >= 1: that partition's end wakes the run
    return {SuppliedPartition::Kind::Later, -1};
  }
  const int p = from.front();
  from.pop_front();
  ++own_pace_.held;
  own_pace_.most_held = std::max(own_pace_.most_held, own_pace_.held);
  return {SuppliedPartition::Kind::Partition, p};
}

void ClusterRun::set_own_waker(std::function<void()> wake) {
  std::unique_lock lock(mu_);
  own_waker_.set(std::move(wake), lock);
}

void ClusterRun::own_partition_ended() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    --own_pace_.held;
    ++own_pace_.ended;
    if (!own_waiting_) return;
    own_waiting_ = false;
    wake = own_waker_.take_locked();
  }
  own_waker_.call(wake, mu_);
}

int ClusterRun::hold_limit(int r) const {
  int64_t lead = own_pace_.ended;
  for (const Pace& other : pace_) lead = std::max(lead, other.ended);
  return paced_hold_limit(pace_[static_cast<size_t>(r)], lead);
}

void ClusterRun::answer(int r) {
  std::vector<int> handed;
  bool last = false;
  {
    std::lock_guard lock(mu_);
    const uint32_t wanted = deferred_[static_cast<size_t>(r)];
    if (wanted == 0) return;  // answered already (cancel)
    if (!cancelled_ && !queue_.empty()) {
      const int room = hold_limit(r) - pace_[static_cast<size_t>(r)].held;
      if (room <= 0) return;  // held back: r holds at least one, whose end comes here
      while (handed.size() < std::min<size_t>(wanted, static_cast<size_t>(room)) &&
             !queue_.empty()) {
        handed.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    deferred_[static_cast<size_t>(r)] = 0;
    last = cancelled_ || queue_.empty();
  }
  grant(r, handed, last);
}

void ClusterRun::partition_ended(int r) {
  {
    std::lock_guard lock(mu_);
    worker_ends_.fetch_add(1);
  }
  changed_.notify_all();
  Pace& pace = pace_[static_cast<size_t>(r)];
  --pace.held;
  ++pace.ended;
  if (r != 0 && pace.ended > workers_lead_.load(std::memory_order_relaxed))
    workers_lead_.store(pace.ended, std::memory_order_relaxed);  // this thread alone writes it
  answer(r);
  check_idle(r);
}

void ClusterRun::check_idle(int r) {
  std::lock_guard lock(mu_);
  if (queue_.empty() && pace_[static_cast<size_t>(r)].held == 0) rank_idle_locked(r);
}

void ClusterRun::rank_idle_locked(int r) {
  if (cancelled_ || idle_[static_cast<size_t>(r)] || no_lending_) return;
  idle_[static_cast<size_t>(r)] = true;
  if (r != 0)
    for (int i : kept_) query_.pool(i).lend_spares(r);
  process::MessageWriter out;
  out.begin(process::Op::Lend);
  out.put(id_);
  for (size_t w = 1; w < idle_.size(); ++w) {
    if (!running_[w] || idle_[w] || told_[w]) continue;
    told_[w] = true;
    transport_.send(static_cast<int>(w), kTagQuery, out.bytes());
  }
}

bool ranges_disabled() {
  const char* v = std::getenv("EMBER_DIST_NO_RANGES");
  return v != nullptr && *v == '1';
}

bool lending_disabled() {
  const char* v = std::getenv("EMBER_DIST_NO_LENDING");
  return v != nullptr && *v == '1';
}

std::unique_ptr<SpreadRun> start_cluster_run(Transport& transport, uint64_t id,
                                             const PhysicalPlan& plan, size_t at,
                                             const std::string& pipeline, bool partials,
                                             QueryContext& query, const SpreadOutput& output) {
  return std::make_unique<ClusterRun>(transport, id, plan, at, pipeline, partials, query, output);
}

}  // namespace ember::dist
