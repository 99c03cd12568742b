// Conversions between Python objects and ember scalars and expressions.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

/// A Python scalar as a Value: None, bool, int, float, str, bytes, datetime (as a UTC
/// timestamp), a list/tuple of those, or a dict with str keys (a struct, fields in the dict's
/// order). InvalidArgument for anything else.
Value to_value(py::handle obj);
/// A Value as the matching Python object (None for null, datetime for a timestamp, dict for a
/// struct).
py::object from_value(const Value& v);
/// An Expr as it is, or a Python scalar as a literal. With `text_is_column`, a str names a
/// column (select("a")); otherwise it is a text literal (col("s") == "a").
Expr to_expr(py::handle obj, bool text_is_column);
/// to_expr over every item of a sequence.
std::vector<Expr> to_exprs(py::handle items, bool text_is_column);

}  // namespace ember::python
