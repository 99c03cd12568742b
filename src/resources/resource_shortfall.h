// Admission failures: deciding that a query's pools do not fit, and saying so actionably.
#pragma once

#include <cstdint>
#include <vector>

#include "resources/gpu_ledger.h"
#include "resources/resource_pool.h"

namespace ember {

enum class ResourceKind { Cpu, Gpu, Memory };

/// Throws ResourceError unless the pools' summed demand for CPUs or GPUs (`kind` is not
/// Memory) fits in `total - held`. Names the one pool that alone does not fit, else every pool
/// that asks for `kind`. Sums in long double: no request, however large, overflows it.
void require_fits(ResourceKind kind, const std::vector<PoolRequest>& requests, double total,
                  double held);
/// The same for memory, in exact bytes: a demand beyond what int64 holds does not fit, and the
/// message prints it exactly.
void require_memory_fits(const std::vector<PoolRequest>& requests, int64_t total, int64_t held);

/// Throws ResourceError for actor `actor` of `request` finding no device with its GPU share
/// free although the sum fits (fragmentation). `ledger` holds the free shares other queries
/// left, which is what the message lists.
[[noreturn]] void throw_gpu_unplaceable(const PoolRequest& request, int actor,
                                        const GpuLedger& ledger, const std::vector<int>& device_ids,
                                        double held_elsewhere);

}  // namespace ember
