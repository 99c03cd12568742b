// The registered C++ UDF class behind every Python UDF: its constructor builds the Python
// class's instance inside whichever interpreter runs the actor (the driver's for thread
// actors, a worker's for process actors), and each call hands the batch to it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdlib>

#include "ember/ember.h"

namespace ember::python {

/// Init args of a Python UDF: "payload" (bytes in a string: the cloudpickled class, its init args,
/// its return type and the driver's sys.path), and "token" and "pid" (int64: in the driver's own
/// process the class is taken from a registry by token instead of being unpickled).
/// Constructed and called on actor threads, which take the GIL for exactly that long.
class PythonUdf {
 public:
  PythonUdf(const InitArgs& args, const ActorContext& actor);
  ~PythonUdf();
  PythonUdf(const PythonUdf&) = delete;
  PythonUdf& operator=(const PythonUdf&) = delete;
  /// One Series per argument column; the result converted to the declared return type.
  Column operator()(const Batch& args);

 private:
  pybind11::object actor_;  // ember.python_udf._Actor; touched only with the GIL held
  // In a process actor's worker (its results go to shared memory, not to NumPy's arrays).
  bool in_worker_process_ = std::getenv("EMBER_WORKER_FD") != nullptr;
};

/// A stateful Udf called `name` whose actors are PythonUdf instances built from `args`.
Udf python_udf(std::string name, InitArgs args);

/// The class name PythonUdf is registered under (EMBER_REGISTER_UDF).
inline constexpr char kPythonUdfClass[] = "PythonUdf";

}  // namespace ember::python
