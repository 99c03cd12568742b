/// \file
/// Process start-up: the one call a program makes before using worker processes or MPI.
#pragma once

namespace ember {

/// Call first thing in main() of a program that uses Isolation::Process or the MPI runner.
/// In the driver it returns at once; when the binary is started as a worker it serves, then
/// exits. Under mpirun (or srun) with several ranks it returns on rank 0 only, after every rank
/// has reported its resources (see ember::cluster()); every other rank hosts the actors rank 0
/// places on it and exits when rank 0's program ends, without returning.
void init(int argc, char** argv);

}  // namespace ember
