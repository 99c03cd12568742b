// Which rank this process is under mpirun, for the cluster app's UDFs and scenarios.
#pragma once

#include <cstdlib>

namespace cluster_app {

/// This process's rank under mpirun (0 without it).
inline int my_rank() {
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  return r ? std::atoi(r) : 0;
}

}  // namespace cluster_app
