// Autoscaling (Udf::concurrency(min, max)): a scaler thread grows a pool by one actor while
// batches wait for an actor longer than grow_after and resources are free, and shrinks it by
// one actor idle for shrink_after, never below the minimum admission reserved.
//
// An added actor's resources come from Growth::acquire (the executor asks the query's resource
// ledger for one actor's share, so growth only ever takes what is free: every other pool of
// the query already holds its minimum). A shrunk actor's lanes leave once its work is done, the
// last one destroying it; the scaler then joins them and gives the share back.
#include <algorithm>
#include <optional>
#include <thread>

#include "udf/actor_pool_impl.h"

namespace ember {
namespace {

using Clock = PoolClock;
/// How often the scaler looks; also the granularity of grow_after and shrink_after.
constexpr std::chrono::milliseconds kTick{5};

}  // namespace

void ActorPool::Impl::scale() {
  std::unique_lock lock(mu);
  while (!scaler_exit) {
    bury_shrunk(lock);
    if (scaler_exit) break;
    grow(lock);
    if (scaler_exit) break;
    if (shrink_locked(Clock::now())) continue;
    scaler_wake.wait_for(lock, kTick);
  }
}

void ActorPool::Impl::grow(std::unique_lock<std::mutex>& lock) {
  if (stopping || failure || active_actors >= static_cast<int>(slots.size())) return;
  // Batches wait for the first actors while they construct: that is not a shortage of actors,
  // so waiting counts from when they are all up.
  if (backlog.empty() || starts_reported < launched_actors) return;
  if (Clock::now() - std::max(backlog.front().queued, all_up) < grow_after) return;
  ActorSlot* slot = nullptr;
  for (auto& s : slots) {
    const bool lanes_gone = std::none_of(s->lanes.begin(), s->lanes.end(), [](const Lane& l) {
      return l.running || l.thread.joinable();
    });
    if (!s->active && !s->retiring && !s->grown && lanes_gone) {
      slot = s.get();
      break;
    }
  }
  if (!slot) return;
  const int id = slot->ctx.actor_id;
  std::optional<ActorContext> ctx = slot->ctx;
  const bool asks = static_cast<bool>(growth.acquire);
  lock.unlock();
  if (asks) {
    ctx = growth.acquire(id);  // the ledger: no pool lock held
    if (ctx) ctx->actor_id = id;
  }
  lock.lock();
  if (!ctx) return;  // no room now; asked again next tick
  if (stopping || failure) {
    lock.unlock();
    if (asks && growth.release) growth.release(id);
    lock.lock();
    return;
  }
  slot->ctx = std::move(*ctx);
  slot->grown = asks;
  slot->active = true;
  slot->reported = true;  // not part of start(): a failed construction fails the pool
  slot->broken = false;
  slot->load = 0;
  slot->idle_since = Clock::now();
  try {
    for (size_t i = 0; i < slot->lanes.size(); ++i) spawn_lane_locked(*slot, i);
  } catch (const std::exception&) {
    // No thread for it now: leave the pool as it was (lanes that did start leave at once).
    slot->active = false;
    slot->retiring = true;
    slot->wake.notify_all();
    return;
  }
  ++active_actors;
  peak_actors = std::max(peak_actors, active_actors);
  scale_ups.fetch_add(1, std::memory_order_relaxed);
}

bool ActorPool::Impl::shrink_locked(Clock::time_point now) {
  if (stopping || active_actors <= min_actors) return false;
  // The surplus actor idle longest; the ones admission reserved stay.
  ActorSlot* idlest = nullptr;
  int active_seen = 0;
  for (auto& s : slots) {
    if (!s->active) continue;
    if (++active_seen <= min_actors) continue;
    if (s->load != 0 || !s->actor || s->constructing || now - s->idle_since < shrink_after)
      continue;
    if (!idlest || s->idle_since < idlest->idle_since) idlest = s.get();
  }
  if (!idlest) return false;
  idlest->active = false;
  idlest->retiring = true;
  --active_actors;
  scale_downs.fetch_add(1, std::memory_order_relaxed);
  idlest->wake.notify_all();  // its idle lanes leave; the last destroys the actor
  return true;
}

void ActorPool::Impl::bury_shrunk(std::unique_lock<std::mutex>& lock) {
  std::vector<std::thread> threads;
  std::vector<int> released;
  for (auto& s : slots) {
    if (!s->retiring) continue;
    const bool running =
        std::any_of(s->lanes.begin(), s->lanes.end(), [](const Lane& l) { return l.running; });
    if (running) continue;
    for (Lane& l : s->lanes)
      if (l.thread.joinable()) threads.push_back(std::move(l.thread));
    s->retiring = false;
    if (s->grown) released.push_back(s->ctx.actor_id);
    s->grown = false;
  }
  if (threads.empty() && released.empty()) return;
  lock.unlock();
  for (std::thread& t : threads) t.join();
  if (growth.release)
    for (int id : released) growth.release(id);
  lock.lock();
}

}  // namespace ember
