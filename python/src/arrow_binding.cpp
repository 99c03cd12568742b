// The Arrow PyCapsule interface: __arrow_c_stream__ on Table and DataFrame, and
// ember.from_arrow over any object that has it.
#include <pybind11/pybind11.h>

#include <string>

#include "arrow_c_data.h"
#include "bindings.h"
#include "deferred_gil.h"
#include "io/arrow/arrow_c_import.h"
#include "run_options.h"

namespace ember::python {

namespace py = pybind11;

namespace {

constexpr const char* kStreamCapsule = "arrow_array_stream";

/// The capsule frees the struct, releasing the stream first if nobody consumed it.
void capsule_destructor(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, kStreamCapsule));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

py::capsule stream_capsule(Table table, py::handle requested_schema) {
  if (!requested_schema.is_none())
    throw InvalidArgument("ember exports its own schema; requested_schema is not supported");
  auto* stream = new ArrowArrayStream{};
  try {
    export_table_stream(std::move(table), stream);
  } catch (...) {
    delete stream;
    throw;
  }
  PyObject* c = PyCapsule_New(stream, kStreamCapsule, &capsule_destructor);
  if (c == nullptr) {
    stream->release(stream);
    delete stream;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(c);
}

Table table_from_arrow(py::object obj) {
  py::object capsule = obj;
  if (py::hasattr(obj, "__arrow_c_stream__")) capsule = obj.attr("__arrow_c_stream__")();
  if (!PyCapsule_IsValid(capsule.ptr(), kStreamCapsule))
    throw InvalidArgument(
        "ember.from_arrow takes an object with __arrow_c_stream__ (the Arrow PyCapsule "
        "interface: a pyarrow Table, a polars DataFrame, an ember Table...) or its capsule");
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), kStreamCapsule));
  // Takes the stream over: its release is ours now.
  // Batches whose buffers the table borrows are released when it lets go of them, maybe on an
  // engine thread: the producer's release runs under the GIL (a Python producer's needs it).
  return arrow_ipc::import_c_stream(
      stream, [](std::function<void()> release) { run_under_gil(std::move(release)); });
}

}  // namespace

void bind_arrow(py::module_& m) {
  py::object table = m.attr("Table");
  py::object frame = m.attr("DataFrame");
  py::cpp_function table_stream(
      [](const Table& t, py::object requested_schema) {
        return stream_capsule(t, requested_schema);
      },
      py::name("__arrow_c_stream__"), py::is_method(table),
      py::arg("requested_schema") = py::none(),
      "The rows as an Arrow C stream (a PyCapsule), one record batch per batch, pointing at "
      "ember's buffers (no copy).");
  table.attr("__arrow_c_stream__") = table_stream;
  py::cpp_function frame_stream(
      [](const DataFrame& d, py::object requested_schema) {
        Table t = run_query<Table>(RunOptions{}, [d](const RunOptions& o) { return d.collect(o); });
        return stream_capsule(std::move(t), requested_schema);
      },
      py::name("__arrow_c_stream__"), py::is_method(frame),
      py::arg("requested_schema") = py::none(),
      "Runs the query (collect()) and gives its rows as an Arrow C stream.");
  frame.attr("__arrow_c_stream__") = frame_stream;
  m.def("table_from_arrow", &table_from_arrow, py::arg("obj"),
        "A Table of the rows of any object with __arrow_c_stream__ (data copied into ember).");
  m.def(
      "from_arrow",
      [](py::object obj, int partitions) { return from_table(table_from_arrow(obj), partitions); },
      py::arg("obj"), py::arg("partitions") = 1,
      "A frame over the rows of any object with __arrow_c_stream__ (a pyarrow Table, a polars "
      "DataFrame, an ember Table or DataFrame...).");
}

}  // namespace ember::python
