// DataFrame::explain(): what a query would run, without running it.
#pragma once

#include <string>

#include "ember/run_options.h"
#include "plan/logical_node.h"

namespace ember {

/// The logical plan, the optimized plan, the actor pools and the resource budget, as text.
std::string explain_plan(const NodePtr& plan, const RunOptions& options);

}  // namespace ember
