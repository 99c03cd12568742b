// Start-up under mpirun: every rank reports its resources to rank 0; rank 0 returns to main()
// as the driver, and every other rank serves rank 0's actors, then exits with the driver.
#pragma once

#include <memory>

#include "ember/cluster.h"
#include "exec/cluster_runtime.h"

namespace ember::dist {

/// ember::init's MPI part (after process isolation's). Without mpirun, or with one rank, it
/// does nothing. On rank 0 it makes the cluster runtime (runtime()) and returns; on any other
/// rank it serves until rank 0's program ends and then exits the process without returning.
void enter_from_main(int argc, char** argv);

/// What rank 0's queries run with under mpirun (where actors go, how partitions spread); null
/// without the MPI runner, on one rank, and once the program is exiting.
std::shared_ptr<ClusterRuntime> runtime();

/// The cluster as start-up found it; one member (this machine) without the MPI runner.
ClusterInfo cluster_info();

/// Throws InvalidArgument when this process is one of several ranks started by mpirun (or
/// srun) but ember::init was never called: each rank would otherwise run the whole program.
void require_init_under_launcher();

/// True when the build has the MPI runner (EMBER_MPI).
bool built_with_mpi();

}  // namespace ember::dist
