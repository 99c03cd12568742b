// Admission failures: deciding that a query's pools do not fit, and saying so actionably.
#include "resources/resource_shortfall.h"

#include <cmath>
#include <string>

#include "ember/error.h"
#include "resources/resource_units.h"

namespace ember {
namespace {

double per_actor(ResourceKind kind, const PoolRequest& r) {
  switch (kind) {
    case ResourceKind::Cpu: return r.cpus_per_actor;
    case ResourceKind::Gpu: return r.gpus_per_actor;
    case ResourceKind::Memory: return static_cast<double>(r.memory_per_actor);
  }
  return 0;
}

/// One actor's share: "1.5 CPU", "0.5 GPU", "3 GiB".
std::string share_text(ResourceKind kind, double amount) {
  switch (kind) {
    case ResourceKind::Cpu: return format_amount(amount) + " CPU";
    case ResourceKind::Gpu: return format_amount(amount) + " GPU";
    case ResourceKind::Memory: return format_bytes(static_cast<int64_t>(amount));
  }
  return {};
}

/// A total: "3 CPUs", "1 GPU", "6 GiB (6442450944 bytes)".
std::string total_text(ResourceKind kind, double amount) {
  switch (kind) {
    case ResourceKind::Cpu: return format_units(amount, "CPU");
    case ResourceKind::Gpu: return format_units(amount, "GPU");
    case ResourceKind::Memory: {
      auto bytes = static_cast<int64_t>(amount);
      return format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
    }
  }
  return {};
}

/// "0" for CPUs/GPUs, "0 B" for memory: what other queries hold.
std::string held_text(ResourceKind kind, double amount) {
  return kind == ResourceKind::Memory ? format_bytes(static_cast<int64_t>(amount))
                                      : format_amount(amount);
}

const char* remedy(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::Cpu: return "lower .concurrency() or .num_cpus()";
    case ResourceKind::Gpu: return "lower .concurrency() or .num_gpus()";
    case ResourceKind::Memory: return "lower .concurrency() or .memory_bytes()";
  }
  return "";
}

std::string actors_times_share(ResourceKind kind, const PoolRequest& r) {
  return std::to_string(r.actors) + (r.actors == 1 ? " actor x " : " actors x ") +
         share_text(kind, per_actor(kind, r));
}

/// ", but 4 CPUs exist (1 held by other queries, 3 free); lower ..."
std::string budget_clause(ResourceKind kind, double total, double held) {
  const bool one = kind != ResourceKind::Memory && total > 0 && total <= 1;
  std::string s = ", but " + total_text(kind, total) + (one ? " exists (" : " exist (") +
                  held_text(kind, held) +
                  " held by other queries";
  if (held > 0) s += ", " + held_text(kind, std::max(0.0, total - held)) + " free";
  return s + "); " + remedy(kind);
}

std::string one_pool_message(ResourceKind kind, const PoolRequest& r, double total,
                             double held) {
  return "udf '" + r.udf_name + "' asks for " + actors_times_share(kind, r) + " = " +
         total_text(kind, r.actors * per_actor(kind, r)) + budget_clause(kind, total, held);
}

std::string pools_message(ResourceKind kind, const std::vector<const PoolRequest*>& pools,
                          double demand, double total, double held) {
  std::string names;
  for (size_t i = 0; i < pools.size(); ++i) {
    if (i > 0) names += (i + 1 == pools.size()) ? " and " : ", ";
    names += "'" + pools[i]->udf_name + "' (" + actors_times_share(kind, *pools[i]) + ")";
  }
  return "udfs " + names + " ask for " + total_text(kind, demand) + " together" +
         budget_clause(kind, total, held);
}

}  // namespace

void require_fits(ResourceKind kind, const std::vector<PoolRequest>& requests, double total,
                  double held) {
  // CPUs and GPUs are fractional, so allow rounding noise; memory sums are exact integers.
  const double slack = kind == ResourceKind::Memory ? 0.0 : 1e-9 * std::max(1.0, total);
  const double free = std::max(0.0, total - held);
  double demand = 0;
  std::vector<const PoolRequest*> asking;
  for (const PoolRequest& r : requests) {
    double want = r.actors * per_actor(kind, r);
    if (want <= 0) continue;
    if (want > free + slack) throw ResourceError(one_pool_message(kind, r, total, held));
    demand += want;
    asking.push_back(&r);
  }
  if (demand <= free + slack) return;
  if (asking.size() == 1) throw ResourceError(one_pool_message(kind, *asking[0], total, held));
  throw ResourceError(pools_message(kind, asking, demand, total, held));
}

void throw_gpu_unplaceable(const PoolRequest& r, int actor, const GpuLedger& ledger,
                           const std::vector<int>& device_ids, double held_elsewhere) {
  const double share = r.gpus_per_actor;
  std::string why;
  if (share >= 1) {
    auto n = static_cast<int64_t>(std::llround(share));
    why = "no " + std::to_string(n) + (n == 1 ? " device is" : " devices are") +
          " wholly free for actor #" + std::to_string(actor);
  } else {
    why = "no device has " + format_amount(share) + " GPU free for actor #" +
          std::to_string(actor);
  }
  throw ResourceError("udf '" + r.udf_name + "' asks for " +
                      actors_times_share(ResourceKind::Gpu, r) + " = " +
                      total_text(ResourceKind::Gpu, r.actors * share) + ", but " + why +
                      " (free share per device: " + ledger.describe_free(device_ids) + "; " +
                      total_text(ResourceKind::Gpu, ledger.devices()) + " exist, " +
                      format_amount(held_elsewhere) +
                      " held by other queries); lower .num_gpus() or .concurrency()");
}

}  // namespace ember
