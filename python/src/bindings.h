// The parts of the _ember extension module, each added by its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

/// ember.Error and its subclasses, and the translation of C++ errors to them (errors.cpp).
void bind_errors(pybind11::module_& m);
/// DataType, Field, Schema and the type constructors (types.cpp).
void bind_types(pybind11::module_& m);
/// Table, QueryResult and the stats structs (table.cpp).
void bind_table(pybind11::module_& m);
/// Expr, col, lit and the expression functions (expr.cpp).
void bind_expr(pybind11::module_& m);
/// DataFrame, GroupedDataFrame, the readers and run options (dataframe.cpp).
void bind_dataframe(pybind11::module_& m);
/// Session (session.cpp).
void bind_session(pybind11::module_& m);
/// Udf builders for Python classes and registered C++ classes, and process start-up
/// (udf_builder.cpp).
void bind_udf(pybind11::module_& m);
/// __arrow_c_stream__ on Table and DataFrame, and from_arrow (arrow_binding.cpp).
void bind_arrow(pybind11::module_& m);

}  // namespace ember::python
