// ResourcePool: one set of resources shared by every query that runs on it.
#include "resources/resource_pool.h"

#include <map>
#include <mutex>
#include <tuple>

#include "ember/error.h"
#include "resources/machine_resources.h"
#include "resources/resource_ledger.h"
#include "resources/resource_units.h"

namespace ember {
namespace {

/// Throws InvalidArgument, the message starting with `origin`, unless `total` is a sane
/// budget. Checked before anything is sized by it: a NaN would also break the ordering of the
/// override map in for_run, and a count of billions of GPUs would allocate gigabytes.
void validate_total(const Resources& total, const std::string& origin) {
  auto bad = [&](const std::string& what) { throw InvalidArgument(origin + ": " + what); };
  if (!(total.cpus >= 0 && total.cpus <= ResourcePool::kMaxCpus))
    bad("cpus must be a finite number in [0, " + format_amount(ResourcePool::kMaxCpus) + "], got " +
        format_amount(total.cpus));
  if (total.gpus < 0 || total.gpus > ResourcePool::kMaxGpus)
    bad("gpus must be in [0, " + std::to_string(ResourcePool::kMaxGpus) + "], got " +
        std::to_string(total.gpus));
  if (total.memory_bytes < 0)
    bad("memory_bytes must be >= 0, got " + std::to_string(total.memory_bytes));
}

std::vector<int> first_ids(const Resources& total) {
  validate_total(total, "resources");  // before the ids are allocated
  std::vector<int> ids;
  for (int i = 0; i < total.gpus; ++i) ids.push_back(i);
  return ids;
}

}  // namespace

ResourcePool::ResourcePool(Resources total) : ResourcePool(total, first_ids(total)) {}

ResourcePool::ResourcePool(Resources total, std::vector<int> gpu_ids) : total_(total) {
  validate_total(total, "resources");
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
  validate_total(*override, "RunOptions::resources");
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
  return admit(requests, std::chrono::milliseconds{0});
}

ResourceLease ResourcePool::admit(const std::vector<PoolRequest>& requests,
                                  std::chrono::milliseconds wait) {
  Admission a = ledger_->admit(requests, wait);
  ResourceLease lease;
  lease.owner_ = ledger_;
  lease.pools_ = std::move(a.pools);
  for (size_t i = 0; i < lease.pools_.size(); ++i) lease.parts_.push_back(i);
  lease.cpus_left_ = a.cpus_left;
  lease.id_ = a.id;
  return lease;
}

const std::vector<int>& ResourcePool::gpu_ids() const { return ledger_->gpu_ids(); }

int ResourcePool::waiting() const { return ledger_->waiting(); }

std::string ResourcePool::describe() const { return ledger_->describe(); }

}  // namespace ember
