// The entry of a worker process, and the driver's command line that workers are started with.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ember::process {

/// What ember::init does for process isolation: records argv (the command line workers are
/// started with) and, when this process was started as a worker, serves the driver over the
/// inherited socket and exits without returning.
void enter_from_main(int argc, char** argv);

/// argv as ember::init saw it in this (driver) process; nullopt when init was never called.
std::optional<std::vector<std::string>> recorded_command_line();

/// True in a process that was started as a worker but has not (yet) reached ember::init: its
/// main() runs something else first. Such a process must never start workers of its own.
bool is_unserved_worker();

}  // namespace ember::process
