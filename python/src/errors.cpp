// ember's C++ errors as Python exceptions of the same names, all subclasses of ember.Error.
#include <pybind11/pybind11.h>

#include <exception>

#include "bindings.h"
#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// The exception classes, created once (they live as long as the module).
struct ErrorTypes {
  PyObject* base = nullptr;
  PyObject* resource = nullptr;
  PyObject* udf = nullptr;
  PyObject* io = nullptr;
  PyObject* parse = nullptr;
  PyObject* type = nullptr;
  PyObject* invalid = nullptr;
};

ErrorTypes& types() {
  static ErrorTypes t;
  return t;
}

PyObject* new_error(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("ember.") + name;
  PyObject* t = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), /*dict=*/nullptr);
  if (t == nullptr) throw py::error_already_set();
  m.attr(name) = py::handle(t);
  return t;
}

PyObject* python_type_of(const Error& e) {
  switch (e.code()) {
    case ErrorCode::Resource:
      return types().resource;
    case ErrorCode::Udf:
      return types().udf;
    case ErrorCode::Io:
      return types().io;
    case ErrorCode::Parse:
      return types().parse;
    case ErrorCode::Type:
      return types().type;
    case ErrorCode::InvalidArgument:
      return types().invalid;
    case ErrorCode::Internal:
      break;
  }
  return types().base;
}

}  // namespace

void bind_errors(py::module_& m) {
  ErrorTypes& t = types();
  py::handle exception(PyExc_Exception);
  t.base = new_error(m, "Error", py::make_tuple(exception), "Base of every error ember raises.");
  py::handle base(t.base);
  t.resource = new_error(m, "ResourceError", py::make_tuple(base),
                         "A query's actor pools do not fit in the resources that exist.");
  t.udf = new_error(m, "UdfError", py::make_tuple(base),
                    "A UDF failed to construct, raised from a call, returned a bad result, or "
                    "its worker process died.");
  t.io =
      new_error(m, "IoError", py::make_tuple(base), "A file could not be found, read or written.");
  t.parse = new_error(m, "ParseError", py::make_tuple(base),
                      "Malformed input; the message starts with file:line:column.");
  // Also the built-in TypeError and ValueError, so that Python habits catch them.
  t.type = new_error(m, "TypeError", py::make_tuple(base, py::handle(PyExc_TypeError)),
                     "A type mismatch found when the plan is built.");
  t.invalid = new_error(m, "InvalidArgument", py::make_tuple(base, py::handle(PyExc_ValueError)),
                        "A bad argument to an API call.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(python_type_of(e), e.what());
    }
  });
}

}  // namespace ember::python
