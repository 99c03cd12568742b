// The machine's CPUs, GPUs and memory, and admission of a query's actor pools into them.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/run_options.h"
#include "ember/udf.h"

namespace ember {

/// What one actor pool asks for.
struct PoolRequest {
  std::string udf_name;
  int actors = 1;
  double cpus_per_actor = 0;
  double gpus_per_actor = 0;
  int64_t memory_per_actor = 0;
};

/// What one actor pool was given: one context per actor (distinct GPU ids).
struct PoolGrant {
  std::string udf_name;
  std::vector<ActorContext> actors;
  double held_cpus = 0, held_gpus = 0;
  int64_t held_memory = 0;
};

class ResourceLedger;  // the shared accounting behind a pool (src/resources/resource_ledger.h)

/// RAII hold on admitted resources; releases them on destruction (or release()). Idempotent.
/// Movable; a lease may outlive the ResourcePool that granted it.
class ResourceLease {
 public:
  ResourceLease() = default;
  ResourceLease(ResourceLease&&) noexcept;
  ResourceLease& operator=(ResourceLease&&) noexcept;
  ~ResourceLease();
  /// Gives everything back. Safe to call twice (not concurrently on one lease).
  void release();
  /// Gives back what pool `i` (index into pools()) holds at once, keeping the others: a pool
  /// whose input has ended frees its share before the query does. Idempotent.
  void release_pool(size_t i);
  /// Moves pool `i`'s hold into a lease of its own (whose pools() is that one grant), to be
  /// released on its own schedule; this lease no longer holds it.
  ResourceLease take_pool(size_t i);
  /// Whether this lease still holds resources.
  bool held() const { return owner_ != nullptr; }
  const std::vector<PoolGrant>& pools() const { return pools_; }
  /// CPUs not held by any pool of any query at admission time (>= 0).
  double cpus_left() const { return cpus_left_; }

 private:
  friend class ResourcePool;
  std::shared_ptr<ResourceLedger> owner_;
  std::vector<PoolGrant> pools_;
  /// Per entry of pools_: its index in the ledger's admission, or kGone once released or
  /// taken.
  std::vector<size_t> parts_;
  static constexpr size_t kGone = static_cast<size_t>(-1);
  double cpus_left_ = 0;
  uint64_t id_ = 0;
};

/// Thread-safe accounting of one set of resources, shared by every query that uses it.
class ResourcePool {
 public:
  /// Most CPUs a pool may have. No machine comes near a million; a larger total is a typo, and
  /// the CPUs left over size an int count of pipeline threads.
  static constexpr double kMaxCpus = 1'000'000;
  /// Most GPUs a pool may have. A pool keeps a ledger entry per device, and no machine has
  /// thousands of them.
  static constexpr int kMaxGpus = 4096;

  /// A pool of `total`, with GPU device ids 0..total.gpus-1. Throws InvalidArgument unless
  /// CPUs are finite in [0, kMaxCpus], GPUs in [0, kMaxGpus] and memory >= 0.
  explicit ResourcePool(Resources total);
  /// A pool of `total` whose GPUs are the devices `gpu_ids` (size must equal total.gpus).
  ResourcePool(Resources total, std::vector<int> gpu_ids);

  /// The pool for `override` if given (one shared pool per distinct override), else the
  /// process-wide pool of the detected machine. Thread-safe; pools live until process exit.
  /// Throws InvalidArgument naming RunOptions::resources for an override the constructor
  /// would refuse.
  static std::shared_ptr<ResourcePool> for_run(const std::optional<Resources>& override);
  /// CPUs (affinity, cgroup cpu.max), memory (cgroup memory.max, else MemTotal), GPUs
  /// (EMBER_GPUS, CUDA_VISIBLE_DEVICES, nvidia-smi -L).
  static Resources detect();

  /// All-or-nothing admission of a query's pools. Throws ResourceError naming the UDF(s), the
  /// resource, the request and what exists / is held by other queries. Nothing is held then.
  /// Throws InvalidArgument for a malformed request (actors < 1, negative amounts).
  ResourceLease admit(const std::vector<PoolRequest>& requests);
  /// The same, but a request that does not fit now waits up to `wait` for other holders to
  /// release, queued in arrival order; one larger than the whole pool throws at once.
  ResourceLease admit(const std::vector<PoolRequest>& requests, std::chrono::milliseconds wait);
  const Resources& total() const { return total_; }
  /// Device ids behind total().gpus, in placement order.
  const std::vector<int>& gpu_ids() const;
  /// Admissions waiting for room now, in arrival order behind one another.
  int waiting() const;
  /// Human-readable budget: what exists, what is held now.
  std::string describe() const;

 private:
  Resources total_;
  std::shared_ptr<ResourceLedger> ledger_;
};

}  // namespace ember
