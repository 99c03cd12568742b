// Work that needs the GIL, asked for on engine threads that must not wait for it.
#pragma once

#include <functional>

namespace ember::python {

/// Runs `task` with the GIL held: at once when this thread holds it, else soon after on a thread
/// that takes it (an actor's next call, or Python's main thread at its next pending-call check).
/// Never waits for the GIL, which a thread holding it may be waiting on this one to give up.
/// At interpreter exit the task is dropped: the process's end frees what it would have.
void run_under_gil(std::function<void()> task);

/// Runs the tasks queued by run_under_gil so far. Under the GIL.
void run_queued_gil_tasks();

}  // namespace ember::python
