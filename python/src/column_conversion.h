// Columns to Python lists and NumPy arrays, and Python sequences and arrays to columns.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>

#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

/// Every row as a Python object (None for null).
py::list column_to_pylist(const Column& c);
/// Whether to_numpy can return a view of the column's own buffer: a fixed-width numeric type
/// (or a fixed_size_list of one) without nulls.
bool numpy_view_possible(const Column& c);
/// A NumPy array of the column. Fixed-width numbers without nulls (and fixed_size_lists of
/// them, as 2-D arrays) are read-only views of the column's buffer, which the array keeps
/// alive; with nulls, numbers become float64 with NaN; bool becomes a bool array (object when
/// it has nulls); anything else an object array. With `zero_copy_only`, InvalidArgument
/// instead of a copy.
py::array column_to_numpy(const Column& c, bool zero_copy_only);
/// A column from a Series, a NumPy array (1-D, or 2-D for a fixed_size_list), or any iterable
/// of Python scalars. With `type`, values are converted to it (InvalidArgument when they
/// cannot be); without, the type is inferred from the values.
Column column_from_python(py::handle obj, std::optional<DataType> type);

}  // namespace ember::python
