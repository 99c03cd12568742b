// DataFrame::explain(): what a query would run, without running it.
#pragma once

#include <string>

#include "ember/run_options.h"
#include "exec/cluster_runtime.h"
#include "plan/logical_node.h"

namespace ember {

/// The logical plan, the optimized plan, the actor pools, the resource budget and the
/// pipelines, as text; under the MPI runner (`cluster`), where actors and partitions would go.
std::string explain_plan(const NodePtr& plan, const RunOptions& options, ClusterRuntime* cluster);

}  // namespace ember
