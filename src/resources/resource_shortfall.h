// Admission failures: deciding that a query's pools do not fit, and saying so actionably.
#pragma once

#include <vector>

#include "resources/gpu_ledger.h"
#include "resources/resource_pool.h"

namespace ember {

enum class ResourceKind { Cpu, Gpu, Memory };

/// Throws ResourceError unless the pools' summed demand for `kind` fits in `total - held`.
/// Names the one pool that alone does not fit, else every pool that asks for `kind`.
void require_fits(ResourceKind kind, const std::vector<PoolRequest>& requests, double total,
                  double held);

/// Throws ResourceError for actor `actor` of `request` finding no device with its GPU share
/// free although the sum fits (fragmentation). `ledger` holds the free shares other queries
/// left, which is what the message lists.
[[noreturn]] void throw_gpu_unplaceable(const PoolRequest& request, int actor,
                                        const GpuLedger& ledger,
                                        const std::vector<int>& device_ids, double held_elsewhere);

}  // namespace ember
