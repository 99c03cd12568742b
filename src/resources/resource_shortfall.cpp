// Admission failures: deciding that a query's pools do not fit, and saying so actionably.
#include "resources/resource_shortfall.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "ember/error.h"
#include "resources/resource_units.h"

namespace ember {
namespace {

/// An amount of one resource kind as admission compares and prints it: memory in exact bytes,
/// CPUs and GPUs as counts in long double, where even INT_MAX actors x DBL_MAX stays finite.
/// Only the field of the kind at hand is used.
struct Amount {
  ByteTotal bytes = 0;
  long double count = 0;
};

Amount per_actor(ResourceKind kind, const PoolRequest& r) {
  switch (kind) {
    case ResourceKind::Cpu:
      return {0, r.cpus_per_actor};
    case ResourceKind::Gpu:
      return {0, r.gpus_per_actor};
    case ResourceKind::Memory:
      return {r.memory_per_actor, 0};
  }
  return {};
}

/// What the whole pool asks for: actors x the per-actor share, exactly.
Amount pool_demand(ResourceKind kind, const PoolRequest& r) {
  if (kind == ResourceKind::Memory) return {total_bytes(r.actors, r.memory_per_actor), 0};
  return {0, static_cast<long double>(r.actors) * per_actor(kind, r).count};
}

bool positive(ResourceKind kind, const Amount& a) {
  return kind == ResourceKind::Memory ? a.bytes > 0 : a.count > 0;
}

/// Whether `want` is more than `free` of `total`. CPUs and GPUs are fractional, so rounding
/// noise is allowed; byte sums are exact.
bool exceeds(ResourceKind kind, const Amount& want, const Amount& free, const Amount& total) {
  if (kind == ResourceKind::Memory) return want.bytes > free.bytes;
  return want.count > free.count + 1e-9L * std::max(1.0L, total.count);
}

/// One actor's share: "1.5 CPU", "0.5 GPU", "3 GiB".
std::string share_text(ResourceKind kind, const Amount& each) {
  switch (kind) {
    case ResourceKind::Cpu:
      return format_amount(each.count) + " CPU";
    case ResourceKind::Gpu:
      return format_amount(each.count) + " GPU";
    case ResourceKind::Memory:
      return format_bytes(each.bytes);
  }
  return {};
}

/// A total: "3 CPUs", "1 GPU", "6 GiB (6442450944 bytes)".
std::string total_text(ResourceKind kind, const Amount& amount) {
  switch (kind) {
    case ResourceKind::Cpu:
      return format_units(amount.count, "CPU");
    case ResourceKind::Gpu:
      return format_units(amount.count, "GPU");
    case ResourceKind::Memory:
      return format_bytes(amount.bytes) + " (" + format_byte_count(amount.bytes) + " bytes)";
  }
  return {};
}

/// "0" for CPUs/GPUs, "0 B" for memory: what other queries hold.
std::string held_text(ResourceKind kind, const Amount& amount) {
  return kind == ResourceKind::Memory ? format_bytes(amount.bytes) : format_amount(amount.count);
}

const char* remedy(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::Cpu:
      return "lower .concurrency() or .num_cpus()";
    case ResourceKind::Gpu:
      return "lower .concurrency() or .num_gpus()";
    case ResourceKind::Memory:
      return "lower .concurrency() or .memory_bytes()";
  }
  return "";
}

std::string actors_times_share(ResourceKind kind, const PoolRequest& r) {
  return std::to_string(r.actors) + (r.actors == 1 ? " actor x " : " actors x ") +
         share_text(kind, per_actor(kind, r));
}

Amount free_of(const Amount& total, const Amount& held) {
  return {std::max<ByteTotal>(0, total.bytes - held.bytes),
          std::max(0.0L, total.count - held.count)};
}

/// ", but 4 CPUs exist (1 held by other queries, 3 free); lower ..."
std::string budget_clause(ResourceKind kind, const Amount& total, const Amount& held) {
  const bool one = kind != ResourceKind::Memory && total.count > 0 && total.count <= 1;
  std::string s = ", but " + total_text(kind, total) + (one ? " exists (" : " exist (") +
                  held_text(kind, held) + " held by other queries";
  if (positive(kind, held)) s += ", " + held_text(kind, free_of(total, held)) + " free";
  return s + "); " + remedy(kind);
}

std::string one_pool_message(ResourceKind kind, const PoolRequest& r, const Amount& total,
                             const Amount& held) {
  return "udf '" + r.udf_name + "' asks for " + actors_times_share(kind, r) + " = " +
         total_text(kind, pool_demand(kind, r)) + budget_clause(kind, total, held);
}

std::string pools_message(ResourceKind kind, const std::vector<const PoolRequest*>& pools,
                          const Amount& demand, const Amount& total, const Amount& held) {
  std::string names;
  for (size_t i = 0; i < pools.size(); ++i) {
    if (i > 0) names += (i + 1 == pools.size()) ? " and " : ", ";
    names += "'" + pools[i]->udf_name + "' (" + actors_times_share(kind, *pools[i]) + ")";
  }
  return "udfs " + names + " ask for " + total_text(kind, demand) + " together" +
         budget_clause(kind, total, held);
}

void require_amount_fits(ResourceKind kind, const std::vector<PoolRequest>& requests,
                         const Amount& total, const Amount& held) {
  const Amount free = free_of(total, held);
  Amount demand;
  std::vector<const PoolRequest*> asking;
  for (const PoolRequest& r : requests) {
    const Amount want = pool_demand(kind, r);
    if (!positive(kind, want)) continue;
    if (exceeds(kind, want, free, total))
      throw ResourceError(one_pool_message(kind, r, total, held));
    demand.bytes += want.bytes;  // below 2^94 per pool: no sum of pools overflows 128 bits
    demand.count += want.count;
    asking.push_back(&r);
  }
  if (!exceeds(kind, demand, free, total)) return;
  if (asking.size() == 1) throw ResourceError(one_pool_message(kind, *asking[0], total, held));
  throw ResourceError(pools_message(kind, asking, demand, total, held));
}

}  // namespace

void require_fits(ResourceKind kind, const std::vector<PoolRequest>& requests, double total,
                  double held) {
  assert(kind != ResourceKind::Memory && "memory is checked in exact bytes");
  require_amount_fits(kind, requests, Amount{0, total}, Amount{0, held});
}

void require_memory_fits(const std::vector<PoolRequest>& requests, int64_t total, int64_t held) {
  require_amount_fits(ResourceKind::Memory, requests, Amount{total, 0}, Amount{held, 0});
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
    why = "no device has " + format_amount(share) + " GPU free for actor #" + std::to_string(actor);
  }
  throw ResourceError(
      "udf '" + r.udf_name + "' asks for " + actors_times_share(ResourceKind::Gpu, r) + " = " +
      total_text(ResourceKind::Gpu, pool_demand(ResourceKind::Gpu, r)) + ", but " + why +
      " (free share per device: " + ledger.describe_free(device_ids) + "; " +
      total_text(ResourceKind::Gpu, Amount{0, static_cast<long double>(ledger.devices())}) +
      " exist, " + format_amount(held_elsewhere) +
      " held by other queries); lower .num_gpus() or .concurrency()");
}

}  // namespace ember
