// ember.Series: one column of a table, or one argument of a Python UDF's call.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "ember/ember.h"

namespace ember::python {

/// A named column, as Python sees it. Immutable; copying shares the column's buffers.
struct Series {
  std::string name;  ///< the column's name ("" for a UDF's computed result)
  Column column;     ///< the data
};

/// Adds ember.Series to the module.
void bind_series(pybind11::module_& m);

}  // namespace ember::python
