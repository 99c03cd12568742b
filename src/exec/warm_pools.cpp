// Lending warm actor pools to a session's queries, taking them back, and reaping idle ones.
#include "exec/warm_pools.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "resources/resource_units.h"
#include "udf/udf_spec_codec.h"

namespace ember {
namespace {

/// Everything that makes two pools interchangeable: every setting of the UDF (its codec's
/// pool key), on the same resources.
std::string warm_key(const UdfSpec& s, const ResourcePool& resources) {
  std::ostringstream k;
  k << &resources << '\n' << udf_pool_key(s);
  return k.str();
}

}  // namespace

WarmPools::WarmPools(std::chrono::milliseconds idle_timeout) : idle_timeout_(idle_timeout) {
  reaper_ = std::thread([this] { reap(); });
}

WarmPools::~WarmPools() { close(); }

WarmPools::Entry WarmPools::take_locked(std::list<Entry>::iterator it) {
  Entry e = std::move(*it);
  entries_.erase(it);
  tallies_[e.key].destroyed += static_cast<int64_t>(e.grant.actors.size());
  return e;
}

void WarmPools::destroy(std::list<Entry>& gone) {
  for (Entry& e : gone)
    if (e.pool) e.pool->stop();  // joins its lanes: the actors are destroyed here
  gone.clear();                  // then the leases give their resources back
}

WarmPools::Loan WarmPools::borrow(const UdfSpec& spec, const ResourcePool& resources) {
  const std::string key = warm_key(spec, resources);
  Loan loan;
  std::list<Entry> dead;
  {
    std::lock_guard lock(mu_);
    if (closed_) return loan;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->key != key || !it->pool) {
        ++it;
        continue;
      }
      if (!it->pool->reusable()) {  // a worker died while it sat idle: replace, never reuse
        auto next = std::next(it);
        dead.push_back(take_locked(it));
        it = next;
        continue;
      }
      loan.id = it->id;
      loan.pool = std::move(it->pool);
      loan.grant = it->grant;
      ++tallies_[key].reuses;
      break;
    }
  }
  destroy(dead);
  return loan;
}

uint64_t WarmPools::adopt(const UdfSpec& spec, const ResourcePool& resources, ResourceLease lease) {
  std::lock_guard lock(mu_);
  // Even once closed: the pool is destroyed (and its lease released) when given back.
  Entry e;
  e.id = next_id_++;
  e.key = warm_key(spec, resources);
  e.name = spec.name;
  if (!lease.pools().empty()) e.grant = lease.pools().front();
  e.lease = std::move(lease);
  tallies_[e.key].name = spec.name;
  entries_.push_back(std::move(e));
  return entries_.back().id;
}

void WarmPools::give_back(uint64_t id, std::unique_ptr<ActorPool> pool) {
  const int64_t inits = pool ? pool->stats().inits : 0;
  const bool reusable = pool && pool->reusable();
  std::list<Entry> gone;
  {
    std::lock_guard lock(mu_);
    auto it =
        std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.id == id; });
    if (it == entries_.end()) return;  // `pool` is stopped by its destructor, below
    tallies_[it->key].inits += std::max<int64_t>(0, inits - it->inits_counted);
    it->inits_counted = std::max(it->inits_counted, inits);
    it->pool = std::move(pool);
    if (closed_ || !reusable) {
      gone.push_back(take_locked(it));
    } else {
      it->idle_since = Clock::now();
      wake_.notify_all();
    }
  }
  destroy(gone);
}

bool WarmPools::evict_idle() {
  std::list<Entry> gone;
  {
    std::lock_guard lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      if (it->pool) gone.push_back(take_locked(it));
      it = next;
    }
  }
  const bool any = !gone.empty();
  destroy(gone);
  return any;
}

void WarmPools::reap() {
  std::unique_lock lock(mu_);
  while (!closed_) {
    const auto now = Clock::now();
    std::optional<Clock::time_point> next;
    std::list<Entry> gone;
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto after = std::next(it);
      if (it->pool) {
        const auto due = it->idle_since + idle_timeout_;
        if (due <= now)
          gone.push_back(take_locked(it));
        else if (!next || due < *next)
          next = due;
      }
      it = after;
    }
    if (!gone.empty()) {
      lock.unlock();
      destroy(gone);
      lock.lock();
      continue;
    }
    if (next)
      wake_.wait_until(lock, *next);
    else
      wake_.wait(lock);
  }
}

void WarmPools::close() {
  std::lock_guard closing(close_mu_);
  std::list<Entry> gone;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      if (it->pool) gone.push_back(take_locked(it));
      it = next;
    }
    wake_.notify_all();
  }
  if (reaper_.joinable()) reaper_.join();
  destroy(gone);
}

bool WarmPools::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

SessionStats WarmPools::stats() const {
  std::lock_guard lock(mu_);
  SessionStats out;
  std::map<std::string, SessionUdfStats> by_key;
  for (const auto& [key, t] : tallies_) {
    SessionUdfStats& u = by_key[key];
    u.name = t.name;
    u.inits = t.inits;
    u.reuses = t.reuses;
    u.destroyed_actors = t.destroyed;
  }
  for (const Entry& e : entries_) {
    SessionUdfStats& u = by_key[e.key];
    const int n = static_cast<int>(e.grant.actors.size());
    u.actors += n;
    if (!e.pool) u.busy_actors += n;
    u.held_cpus += e.grant.held_cpus;
    u.held_gpus += e.grant.held_gpus;
    u.held_memory_bytes += e.grant.held_memory;
  }
  for (auto& [key, u] : by_key) {
    out.actors += u.actors;
    out.inits += u.inits;
    out.reuses += u.reuses;
    out.destroyed_actors += u.destroyed_actors;
    out.udfs.push_back(std::move(u));
  }
  return out;
}

std::string WarmPools::describe() const {
  std::lock_guard lock(mu_);
  std::ostringstream out;
  if (entries_.empty()) out << "  (no warm actors)\n";
  for (const Entry& e : entries_) {
    out << "  " << e.name << ": " << e.grant.actors.size() << " actor"
        << (e.grant.actors.size() == 1 ? "" : "s") << (e.pool ? " warm (idle)" : " serving a query")
        << ", holding " << format_amount(e.grant.held_cpus) << " CPU, "
        << format_amount(e.grant.held_gpus) << " GPU, " << format_bytes(e.grant.held_memory)
        << "\n";
  }
  return out.str();
}

}  // namespace ember
