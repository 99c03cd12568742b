// ember.Session: actor pools kept warm across queries. Closing destroys actors, whose Python
// UDFs need the GIL on their own threads, so close and destruction run without it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>

#include "bindings.h"
#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// Destroys a Session without holding the GIL (when there is an interpreter to release).
struct ReleasingDeleter {
  void operator()(Session* s) const {
    if (Py_IsInitialized() && PyGILState_Check()) {
      py::gil_scoped_release release;
      delete s;
    } else {
      delete s;
    }
  }
};

void bind_session_stats(py::module_& m) {
  py::class_<SessionUdfStats>(m, "SessionUdfStats", "One UDF's warm actors in a session.")
      .def_readonly("name", &SessionUdfStats::name)
      .def_readonly("actors", &SessionUdfStats::actors)
      .def_readonly("busy_actors", &SessionUdfStats::busy_actors)
      .def_readonly("inits", &SessionUdfStats::inits)
      .def_readonly("reuses", &SessionUdfStats::reuses)
      .def_readonly("destroyed_actors", &SessionUdfStats::destroyed_actors);
  py::class_<SessionStats>(m, "SessionStats", "A session's warm actors and what they cost.")
      .def_readonly("udfs", &SessionStats::udfs)
      .def_readonly("actors", &SessionStats::actors)
      .def_readonly("inits", &SessionStats::inits)
      .def_readonly("reuses", &SessionStats::reuses)
      .def_readonly("destroyed_actors", &SessionStats::destroyed_actors);
}

}  // namespace

void bind_session(py::module_& m) {
  bind_session_stats(m);
  py::class_<Session, std::unique_ptr<Session, ReleasingDeleter>>(m, "Session", R"doc(
Keeps actors warm across queries: pass it as ``session=`` to collect()/execute()/write_*(), and
a UDF with the same class, init args and settings is constructed once for all of them. A
context manager: leaving the ``with`` block closes it.)doc")
      .def(py::init([](double idle_timeout) {
             SessionOptions o;
             o.idle_timeout = std::chrono::milliseconds(static_cast<int64_t>(idle_timeout * 1000));
             return std::unique_ptr<Session, ReleasingDeleter>(new Session(o));
           }),
           py::arg("idle_timeout") = 60.0,
           "idle_timeout: seconds a warm pool may sit unused before it is destroyed.")
      .def("close", &Session::close, py::call_guard<py::gil_scoped_release>(),
           "Destroys every idle actor now (busy ones when their query ends). Idempotent.")
      .def("stats", &Session::stats, "Warm actors per UDF, constructions and reuses.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Session& s, py::args) {
        py::gil_scoped_release release;
        s.close();
      });
}

}  // namespace ember::python
