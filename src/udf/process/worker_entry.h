// ember::init's record of the driver's command line, which worker processes are started with.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ember::process {

/// argv as ember::init saw it in this (driver) process; nullopt when init was never called.
std::optional<std::vector<std::string>> recorded_command_line();

/// True in a process that was started as a worker but has not (yet) reached ember::init: its
/// main() runs something else first. Such a process must never start workers of its own.
bool is_unserved_worker();

}  // namespace ember::process
