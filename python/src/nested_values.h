// Python values of a known ember type, nested ones included: a struct is a dict {name: value},
// a map a list of (key, value) tuples (as pyarrow's to_pylist gives them), a list a list.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

/// `v`, a value of `type`, as a Python object: structs as dicts, maps as lists of (key, value)
/// tuples, lists as lists, their items converted by their own types; scalars as from_value.
py::object from_typed_value(const Value& v, const DataType& type);
/// A Python object as a value of `type`: a struct from a dict (its keys the fields' names,
/// a missing one null), a map from a dict or a sequence of (key, value) pairs, a list from a
/// sequence. InvalidArgument naming the field for a key the struct lacks or a malformed pair.
Value to_typed_value(py::handle obj, const DataType& type);
/// Whether `type` holds a struct or a map at any depth (its values need the typed conversions).
bool holds_struct_or_map(const DataType& type);
/// The type of a column of these values: the widest of their types (int with float gives
/// float64; lists and structs merged item by item and field by field, a struct's fields in the
/// order first seen), the Null type when all are null.
DataType infer_type(const std::vector<Value>& values);

}  // namespace ember::python
