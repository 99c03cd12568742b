// The command-line options every runner shares.
#pragma once

#include <CLI/CLI.hpp>

#include "workload_options.h"

namespace bench {

/// Adds --workload, --input, --out, --repeat, --workers, --partitions, --rows, --init-ms,
/// --batch-size and --split-bytes to `app`, bound to `o`.
void add_workload_options(CLI::App& app, WorkloadOptions& o);

}  // namespace bench
