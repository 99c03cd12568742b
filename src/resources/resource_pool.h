// The machine's CPUs, GPUs and memory, and admission of a query's actor pools into them.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ember/dataframe.h"
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

class ResourcePool;

/// RAII hold on admitted resources; releases them on destruction (or release()). Idempotent.
class ResourceLease {
 public:
  ResourceLease() = default;
  ResourceLease(ResourceLease&&) noexcept;
  ResourceLease& operator=(ResourceLease&&) noexcept;
  ~ResourceLease();
  void release();
  const std::vector<PoolGrant>& pools() const { return pools_; }
  /// CPUs not held by any pool of any query at admission time (>= 0).
  double cpus_left() const { return cpus_left_; }

 private:
  friend class ResourcePool;
  std::shared_ptr<ResourcePool> owner_;
  std::vector<PoolGrant> pools_;
  double cpus_left_ = 0;
  uint64_t id_ = 0;
};

/// Thread-safe accounting of one set of resources, shared by every query that uses it.
class ResourcePool {
 public:
  explicit ResourcePool(Resources total);
  /// The pool for `override` if given (one shared pool per distinct override), else the
  /// process-wide pool of the detected machine.
  static std::shared_ptr<ResourcePool> for_run(const std::optional<Resources>& override);
  /// CPUs (affinity, cgroup cpu.max), memory (cgroup memory.max, else MemTotal), GPUs
  /// (EMBER_GPUS, CUDA_VISIBLE_DEVICES, nvidia-smi -L).
  static Resources detect();

  /// All-or-nothing admission of a query's pools. Throws ResourceError naming the UDF(s), the
  /// resource, the request and what exists / is held by other queries. Nothing is held then.
  ResourceLease admit(const std::vector<PoolRequest>& requests);
  const Resources& total() const { return total_; }
  /// Human-readable budget: what exists, what is held now.
  std::string describe() const;

 private:
  friend class ResourceLease;
  void release(uint64_t lease_id);
  struct Impl;
  Resources total_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace ember
