// The actor pools a Session keeps warm between queries: lent to one query at a time, taken
// back when it ends, destroyed once idle for too long or when the session closes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ember/session.h"
#include "resources/resource_pool.h"
#include "udf/actor_pool.h"

namespace ember {

/// Thread-safe. Lock order: this object's lock, then a pool's own; pools are started and
/// stopped with no lock of this object held. An idle-reaper thread destroys pools idle past
/// the timeout; close() joins it, so it never outlives the object.
class WarmPools {
 public:
  explicit WarmPools(std::chrono::milliseconds idle_timeout);
  ~WarmPools();  ///< close()
  WarmPools(const WarmPools&) = delete;
  WarmPools& operator=(const WarmPools&) = delete;

  /// A pool on loan to one query.
  struct Loan {
    uint64_t id = 0;  ///< 0: no warm pool matched
    std::unique_ptr<ActorPool> pool;
    PoolGrant grant;
  };
  /// An idle warm pool serving the same UDF (class, name, init args, resources, isolation and
  /// pool settings) on `resources`, lent exclusively until give_back(); else an empty Loan.
  /// A pool found with a dead worker is destroyed rather than lent.
  Loan borrow(const UdfSpec& spec, const ResourcePool& resources);
  /// Registers a pool constructed for a query in this session, on loan to that query; `lease`
  /// (that pool's hold alone) is kept for as long as the pool lives.
  uint64_t adopt(const UdfSpec& spec, const ResourcePool& resources, ResourceLease lease);
  /// The query is done with loan `id`: `pool` stays warm if it can serve again and the
  /// session is open, else it is stopped and its resources released. A null `pool` (the query
  /// stopped it) just releases. Not from an actor thread.
  void give_back(uint64_t id, std::unique_ptr<ActorPool> pool);
  /// Destroys every idle pool (to make room for a query that did not fit). Whether any was.
  bool evict_idle();
  /// Destroys the idle pools and joins the reaper; pools on loan are destroyed when given
  /// back. Idempotent; not from an actor thread.
  void close();
  bool closed() const;
  SessionStats stats() const;
  /// explain()'s lines: one per warm pool.
  std::string describe() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    uint64_t id = 0;
    std::string key, name;
    std::unique_ptr<ActorPool> pool;  ///< null while on loan
    ResourceLease lease;
    PoolGrant grant;
    Clock::time_point idle_since;
    int64_t inits_counted = 0;  ///< of pool->stats().inits, already in the tally
  };
  struct Tally {
    std::string name;
    int64_t inits = 0, reuses = 0, destroyed = 0;
  };
  /// Moves the entry out of the list (the caller stops its pool, with no lock held, before
  /// the lease it carries is released). Requires mu_.
  Entry take_locked(std::list<Entry>::iterator it);
  /// Stops the pools of `gone` (no lock held), then releases what they held.
  static void destroy(std::list<Entry>& gone);
  void reap();

  const std::chrono::milliseconds idle_timeout_;
  mutable std::mutex mu_;
  std::condition_variable wake_;          // the reaper's: a pool went idle, or closing
  std::list<Entry> entries_;              // guarded by mu_
  std::map<std::string, Tally> tallies_;  // guarded by mu_; by key
  uint64_t next_id_ = 1;                  // guarded by mu_
  bool closed_ = false;                   // guarded by mu_
  std::mutex close_mu_;                   // serialises close(): one joins the reaper
  std::thread reaper_;
};

}  // namespace ember
