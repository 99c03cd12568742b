// Process start-up: the one call a program makes before using worker processes or MPI.
#pragma once

namespace ember {

/// Call first thing in main() of a program that uses Isolation::Process or the MPI runner.
/// In the driver it returns at once; when the binary is started as a worker it serves, then
/// exits.
void init(int argc, char** argv);

}  // namespace ember
