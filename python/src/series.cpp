// ember.Series: length, type, nulls, and the data as a list or a (zero-copy) NumPy array.
#include "series.h"

#include <pybind11/stl.h>

#include <utility>

#include "column_conversion.h"
#include "padded_numpy.h"

namespace ember::python {

namespace py = pybind11;

void bind_series(py::module_& m) {
  // pybind11 looks NumPy's C API up once, in a function-local static whose initialisation
  // imports NumPy and so lets go of the GIL: done first on two actor threads at once, one
  // waits for the static while holding the GIL the other needs. Here, at import, it is done.
  (void)py::dtype("float64");
  prepare_padded_numpy();  // the same, for NumPy's C API
  py::class_<Series>(m, "Series", R"doc(
One column of data: a column of a Table, or an argument of a UDF's call.

``len(s)`` rows of type ``s.type``; ``s.to_numpy()`` is a read-only view of the column's own
buffer (no copy) for fixed-width numbers without nulls, and ``s.to_pylist()`` gives Python
objects (``None`` for null).)doc")
      .def(py::init([](py::object values, std::optional<DataType> type, std::string name) {
             return Series{std::move(name), column_from_python(values, type)};
           }),
           py::arg("values"), py::arg("type") = py::none(), py::arg("name") = "",
           "A Series from a NumPy array, a list or another Series; ``type`` converts (or is "
           "inferred when None). A struct value is a dict, a map value a dict or a list of "
           "(key, value) pairs.")
      .def_readonly("name", &Series::name, "The column's name ('' for a computed result).")
      .def_property_readonly(
          "type", [](const Series& s) { return s.column.type(); }, "The column's DataType.")
      .def_property_readonly(
          "null_count", [](const Series& s) { return s.column.null_count(); },
          "Number of null rows.")
      .def("__len__", [](const Series& s) { return s.column.size(); })
      .def(
          "to_numpy",
          [](const Series& s, bool zero_copy_only) {
            return column_to_numpy(s.column, zero_copy_only);
          },
          py::arg("zero_copy_only") = false, R"doc(
The data as a NumPy array. Fixed-width numbers (int32/int64/float32/float64/timestamp) without
nulls, and fixed_size_lists of them (as 2-D arrays), are read-only views of the column's
buffer: no copy. Otherwise a copy: numbers with nulls as float64 with NaN, bool as bool, other
types as an object array. ``zero_copy_only=True`` raises InvalidArgument instead of copying.)doc")
      .def(
          "to_pylist", [](const Series& s) { return column_to_pylist(s.column); },
          "Every row as a Python object (None for null): a struct as a dict {field: value}, a "
          "map as a list of (key, value) tuples.")
      .def("__getitem__",
           [](const Series& s, int64_t i) {
             const int64_t n = s.column.size();
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("Series index out of range");
             py::list one = column_to_pylist(s.column.slice(i, 1));
             return py::object(one[0]);
           })
      .def(
          "__array__",
          [](const Series& s, py::object dtype) {
            py::array a = column_to_numpy(s.column, false);
            return dtype.is_none() ? a : a.attr("astype")(dtype).cast<py::array>();
          },
          py::arg("dtype") = py::none())
      .def("__repr__", [](const Series& s) {
        py::list head = column_to_pylist(s.column.slice(0, std::min<int64_t>(s.column.size(), 10)));
        std::string text = "Series(" + (s.name.empty() ? "" : "'" + s.name + "', ") +
                           s.column.type().to_string() + ", " + std::to_string(s.column.size()) +
                           " rows: " + py::repr(head).cast<std::string>();
        if (s.column.size() > 10) text.insert(text.size() - 1, ", ...");
        return text + ")";
      });
  // Private, for ember.python_udf: a UDF's result as a Series. With `shareable` (no Python code
  // holds the array any more), a NumPy array allocated during the call becomes the column's
  // buffer without a copy.
  m.def(
      "_udf_result",
      [](py::object values, std::optional<DataType> type, bool shareable) {
        ScopedShareable share(shareable);
        return Series{"", column_from_python(values, type)};
      },
      py::arg("values"), py::arg("type"), py::arg("shareable"));
}

}  // namespace ember::python
