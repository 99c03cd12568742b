// Taking the GIL on an engine thread (an actor's), cheaply and repeatedly.
#pragma once

#include <Python.h>

namespace ember::python {

/// Holds the GIL for its lifetime, on a thread Python did not start. The thread's Python
/// thread state is made on its first use and kept until the thread exits, so a call costs a
/// lock hand-over instead of a thread state's creation and destruction (which
/// pybind11::gil_scoped_acquire does on such threads every time). A thread that has a thread
/// state already (Python's main thread, serving in a worker process with the GIL let go of)
/// takes the GIL with it. Not reentrant: a thread that holds the GIL must not make one.
class ActorGil {
 public:
  ActorGil();
  ~ActorGil();
  ActorGil(const ActorGil&) = delete;
  ActorGil& operator=(const ActorGil&) = delete;

 private:
  bool ensured_ = false;  // a thread Python knows already: PyGILState_Ensure's way
  PyGILState_STATE gilstate_{};
};

/// Whether the interpreter is running and not shutting down (the GIL may be taken).
bool interpreter_alive();

}  // namespace ember::python
