// A Python thread state per engine thread, kept from call to call.
#include "actor_gil.h"

namespace ember::python {

namespace {

/// This thread's Python thread state; deleted when the thread exits (if Python still runs).
struct KeptThreadState {
  PyThreadState* state = nullptr;
  ~KeptThreadState() {
    if (state == nullptr || !interpreter_alive()) return;  // Python cleans up at its exit
    PyEval_RestoreThread(state);
    PyThreadState_Clear(state);
    PyThreadState_DeleteCurrent();
  }
};

}  // namespace

bool interpreter_alive() { return Py_IsInitialized() && !_Py_IsFinalizing(); }

ActorGil::ActorGil() {
  thread_local KeptThreadState kept;
  PyThreadState* known = PyGILState_GetThisThreadState();
  if (known != nullptr && known != kept.state) {
    ensured_ = true;
    gilstate_ = PyGILState_Ensure();
    return;
  }
  if (kept.state == nullptr) {
    kept.state = PyThreadState_New(PyInterpreterState_Main());
    // A count of our own: pybind11's gil_scoped_acquire, nested inside (an error's cleanup),
    // finds this state and would delete it when its count went back to zero.
    kept.state->gilstate_counter = 1;
  }
  PyEval_RestoreThread(kept.state);
}

ActorGil::~ActorGil() {
  if (ensured_) {
    PyGILState_Release(gilstate_);
  } else {
    PyEval_SaveThread();
  }
}

}  // namespace ember::python
