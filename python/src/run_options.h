// Run options from Python keyword arguments, and running a query without holding the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>

#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

/// RunOptions from keyword arguments: threads, progress, memory_budget_bytes, session,
/// resumable, checkpoint_rows, discard_unfinished, resources ({"cpus", "gpus",
/// "memory_bytes"}) and wait_for_resources (seconds). InvalidArgument naming an unknown one.
RunOptions run_options_from(const py::kwargs& kwargs);

/// Runs `work` (a query, given `options` with RunOptions::cancel set) on a thread of its own
/// while this thread waits for it without the GIL, taking the GIL every 100 ms to let Python
/// run its signal handlers. When one raises (Ctrl-C: KeyboardInterrupt), the query is
/// cancelled, waited for (its actors and worker processes are gone then), and the handler's
/// exception raised here. Table, QueryResult and std::string results.
template <class R>
R run_query(RunOptions options, std::function<R(const RunOptions&)> work);

}  // namespace ember::python
