// The shared, locked accounting behind a ResourcePool: what exists and what each lease holds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "resources/gpu_ledger.h"
#include "resources/resource_pool.h"

namespace ember {

/// One granted admission, before it is wrapped in a ResourceLease.
struct Admission {
  uint64_t id = 0;
  std::vector<PoolGrant> pools;
  double cpus_left = 0;
};

/// Owned through shared_ptr by the pool and by every live lease, so a lease may outlive its
/// pool. Every method is thread-safe.
class ResourceLedger {
 public:
  ResourceLedger(Resources total, std::vector<int> gpu_ids);

  /// Checks every resource, places GPU shares, then commits all at once; on any failure
  /// throws (ResourceError / InvalidArgument) with nothing held. With `wait` > 0 a request
  /// that does not fit now queues behind earlier waiters (first come, first admitted) for up
  /// to `wait` while other holders release; one that could never fit, even on an idle
  /// machine, throws at once.
  Admission admit(const std::vector<PoolRequest>& requests,
                  std::chrono::milliseconds wait = std::chrono::milliseconds{0});
  /// Returns what admission `id` holds. Unknown or already released ids are ignored.
  void release(uint64_t id);
  /// Returns what pool `pool` (index into the admission's requests) of admission `id` holds,
  /// leaving its other pools held. Unknown ids and pools released already are ignored.
  void release_pool(uint64_t id, size_t pool);
  /// "resources: 2 CPUs, 23.4 GiB memory, 0 GPUs; held by running queries: 0 CPUs, 0 B, 0 GPUs"
  std::string describe() const;
  const std::vector<int>& gpu_ids() const { return gpu_ids_; }
  /// Admissions waiting for room now (RunOptions::wait_for_resources).
  int waiting() const;

 private:
  /// What one pool of an admission holds, to give back on release.
  struct Hold {
    double cpus = 0;
    int64_t memory = 0;
    std::vector<std::pair<int, int64_t>> gpu_units;  ///< (device index, units)
    bool released = false;
  };
  /// Admits now or throws ResourceError. Requires mu_.
  Admission admit_locked(const std::vector<PoolRequest>& requests);
  /// Throws ResourceError if `requests` would not fit even with nothing held. Requires mu_.
  void require_possible_locked(const std::vector<PoolRequest>& requests) const;
  /// Gives one pool's hold back. Requires mu_.
  void give_back_locked(Hold& hold);
  /// Per pool, per actor: the device indices it was placed on. Works on `ledger` (a copy);
  /// each pool's device shares go to its entry of `holds`.
  std::vector<std::vector<std::vector<int>>> place_gpus(const std::vector<PoolRequest>& requests,
                                                        GpuLedger& ledger,
                                                        std::vector<Hold>& holds) const;

  const Resources total_;
  const std::vector<int> gpu_ids_;
  mutable std::mutex mu_;
  double held_cpus_ = 0;                                   // guarded by mu_
  int64_t held_memory_ = 0;                                // guarded by mu_
  GpuLedger gpus_;                                         // guarded by mu_
  std::unordered_map<uint64_t, std::vector<Hold>> holds_;  // guarded by mu_; per pool
  uint64_t next_id_ = 1;                                   // guarded by mu_
  /// Waiting admissions in arrival order (their tickets); only the front one may admit.
  std::deque<uint64_t> waiting_;   // guarded by mu_
  uint64_t next_ticket_ = 1;       // guarded by mu_
  std::condition_variable freed_;  ///< something was released, or the front waiter left
};

}  // namespace ember
