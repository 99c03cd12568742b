// Building pool requests and reading admission's verdict, for the admission tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember::testing_resources {

constexpr int64_t kGiB = int64_t{1} << 30;

inline PoolRequest request(std::string name, int actors, double cpus, double gpus = 0,
                           int64_t memory = 0) {
  return PoolRequest{std::move(name), actors, cpus, gpus, memory};
}

/// The ResourceError message admission throws, or "" when it admits.
inline std::string admission_error(ResourcePool& pool, const std::vector<PoolRequest>& requests) {
  try {
    pool.admit(requests);
  } catch (const ResourceError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ember::testing_resources
