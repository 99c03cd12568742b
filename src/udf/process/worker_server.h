// The worker side of process isolation: construct the UDF the driver names, then serve calls
// until told to stop (or until the driver goes away).
#pragma once

namespace ember::process {

/// Serves the driver on `control_fd` and exits the process (it never returns into main()).
[[noreturn]] void serve_as_worker(int control_fd);

}  // namespace ember::process
