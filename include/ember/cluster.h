/// \file
/// The cluster a program runs on under mpirun: its ranks, their hosts and resources.
#pragma once

#include <string>
#include <vector>

#include "ember/run_options.h"

namespace ember {

/// One rank (process) of the cluster: where it runs and what it offers to actor pools.
struct RankInfo {
  int rank = 0;         ///< 0..ranks-1; rank 0 runs the program's queries
  std::string host;     ///< the name of the machine it runs on
  Resources resources;  ///< what this rank detected (docs/resources.md)
};

/// The ranks a program runs on. `ranks == 1` (no mpirun, `-np 1`, or a build without MPI):
/// every query runs on the local executor.
struct ClusterInfo {
  int ranks = 1;                  ///< processes in the cluster
  std::vector<RankInfo> members;  ///< one per rank, by rank
};

/// The cluster, as ember::init found it (rank 0 gathers every rank's resources). Valid after
/// ember::init; before it, or without mpirun, one member: this process's machine.
ClusterInfo cluster();

}  // namespace ember
