// A plain Python function as a stateless UDF (Udf::fn): called inline by whichever pipeline
// thread evaluates the expression, under the GIL, with nothing constructed.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "ember/ember.h"

namespace ember::python {

/// A stateless Udf called `name` that calls `call(num_rows, *series)` (an
/// ember.python_udf._FunctionCall: the user's function, its result checked and converted to a
/// Series) for each batch. The callable is let go of under the GIL when the last copy of the
/// Udf goes, whichever thread that is.
Udf python_function_udf(std::string name, pybind11::object call);

/// `object`, let go of under the GIL when the last copy of the pointer goes, whichever thread
/// that is (at interpreter exit, never).
std::shared_ptr<pybind11::object> hold(pybind11::object object);

/// The kind of portable function (udf/portable_function.h) a pickled Python function is: its
/// payload is what ember.python_udf._function_payload made.
inline constexpr char kPythonFunctionKind[] = "python";

/// Registers the maker of kPythonFunctionKind functions in this process (at module load): it
/// unpickles a payload into the call python_function_udf makes.
void register_python_function_maker();

}  // namespace ember::python
