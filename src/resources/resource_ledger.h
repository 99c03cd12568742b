// The shared, locked accounting behind a ResourcePool: what exists and what each lease holds.
#pragma once

#include <cstdint>
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
  /// throws (ResourceError / InvalidArgument) with nothing held.
  Admission admit(const std::vector<PoolRequest>& requests);
  /// Returns what admission `id` holds. Unknown or already released ids are ignored.
  void release(uint64_t id);
  /// "resources: 2 CPUs, 23.4 GiB memory, 0 GPUs; held by running queries: 0 CPUs, 0 B, 0 GPUs"
  std::string describe() const;
  const std::vector<int>& gpu_ids() const { return gpu_ids_; }

 private:
  /// What one admission holds, to give back on release.
  struct Hold {
    double cpus = 0;
    int64_t memory = 0;
    std::vector<std::pair<int, int64_t>> gpu_units;  ///< (device index, units)
  };
  /// Per pool, per actor: the device indices it was placed on. Works on `ledger` (a copy).
  std::vector<std::vector<std::vector<int>>> place_gpus(const std::vector<PoolRequest>& requests,
                                                        GpuLedger& ledger, Hold& hold) const;

  const Resources total_;
  const std::vector<int> gpu_ids_;
  mutable std::mutex mu_;
  double held_cpus_ = 0;                      // guarded by mu_
  int64_t held_memory_ = 0;                   // guarded by mu_
  GpuLedger gpus_;                            // guarded by mu_
  std::unordered_map<uint64_t, Hold> holds_;  // guarded by mu_
  uint64_t next_id_ = 1;                      // guarded by mu_
};

}  // namespace ember
