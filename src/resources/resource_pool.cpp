// ResourcePool: one set of resources shared by every query that runs on it.
#include "resources/resource_pool.h"

#include <map>
#include <mutex>
#include <tuple>

#include "ember/error.h"
#include "resources/machine_resources.h"
#include "resources/resource_ledger.h"

namespace ember {
namespace {

std::vector<int> first_ids(int count) {
  std::vector<int> ids;
  for (int i = 0; i < count; ++i) ids.push_back(i);
  return ids;
}

}  // namespace

ResourcePool::ResourcePool(Resources total) : ResourcePool(total, first_ids(total.gpus)) {}

ResourcePool::ResourcePool(Resources total, std::vector<int> gpu_ids) : total_(total) {
  if (!(total.cpus >= 0) || total.gpus < 0 || total.memory_bytes < 0)
    throw InvalidArgument("resources must not be negative: " + std::to_string(total.cpus) +
                          " CPUs, " + std::to_string(total.gpus) + " GPUs, " +
                          std::to_string(total.memory_bytes) + " bytes");
  if (static_cast<int>(gpu_ids.size()) != total.gpus)
    throw InvalidArgument("resources name " + std::to_string(gpu_ids.size()) +
                          " GPU device ids for " + std::to_string(total.gpus) + " GPUs");
  ledger_ = std::make_shared<ResourceLedger>(total, std::move(gpu_ids));
}

std::shared_ptr<ResourcePool> ResourcePool::for_run(const std::optional<Resources>& override) {
  if (!override) {
    // Detected once: the machine does not change under a running process, and every query
    // must compete in the same pool.
    static const std::shared_ptr<ResourcePool> machine = [] {
      MachineResources m = detect_machine();
      return std::make_shared<ResourcePool>(m.total, std::move(m.gpu_ids));
    }();
    return machine;
  }
  // Pools per override live for the process: queries sharing an override must compete even
  // when they do not overlap in time with a holder of the pool object, and overrides are few.
  static std::mutex mu;
  static std::map<std::tuple<double, int, int64_t>, std::shared_ptr<ResourcePool>> pools;
  std::lock_guard lock(mu);
  auto key = std::make_tuple(override->cpus, override->gpus, override->memory_bytes);
  auto& pool = pools[key];
  if (!pool) pool = std::make_shared<ResourcePool>(*override);
  return pool;
}

Resources ResourcePool::detect() { return detect_machine().total; }

ResourceLease ResourcePool::admit(const std::vector<PoolRequest>& requests) {
  Admission a = ledger_->admit(requests);
  ResourceLease lease;
  lease.owner_ = ledger_;
  lease.pools_ = std::move(a.pools);
  lease.cpus_left_ = a.cpus_left;
  lease.id_ = a.id;
  return lease;
}

const std::vector<int>& ResourcePool::gpu_ids() const { return ledger_->gpu_ids(); }

std::string ResourcePool::describe() const { return ledger_->describe(); }

}  // namespace ember
