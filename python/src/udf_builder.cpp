// ember.Udf (a configured UDF, called on expressions), the builders behind ember.cls and
// ember.udf, and process start-up: the worker command line and a worker's serving loop.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "ember/ember.h"
#include "native_udf.h"
#include "python_function.h"
#include "python_udf.h"
#include "python_values.h"
#include "udf/portable_function.h"
#include "udf/udf_spec.h"

namespace ember::python {

namespace py = pybind11;

namespace {

std::chrono::milliseconds millis(py::handle seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds.cast<double>() * 1000.0));
}

OnError on_error(const std::string& name) {
  if (name == "raise") return OnError::Raise;
  if (name == "null") return OnError::Null;
  if (name == "skip") return OnError::Skip;
  throw InvalidArgument("on_error='" + name + "': use 'raise', 'null' or 'skip'");
}

Isolation isolation(const std::string& name) {
  if (name == "thread") return Isolation::Thread;
  if (name == "process") return Isolation::Process;
  throw InvalidArgument("isolation='" + name + "': use 'thread' or 'process'");
}

/// One keyword setting applied to `u` (None leaves the default).
Udf apply(Udf u, const std::string& k, py::handle v) {
  if (v.is_none()) return u;
  if (k == "returns") return u.returns(v.cast<DataType>());
  if (k == "batch_size") return u.batch_size(v.cast<int64_t>());
  if (k == "concurrency") {
    if (py::isinstance<py::int_>(v)) return u.concurrency(v.cast<int>());
    auto [lo, hi] = v.cast<std::pair<int, int>>();
    return u.concurrency(lo, hi);
  }
  if (k == "num_cpus") return u.num_cpus(v.cast<double>());
  if (k == "num_gpus") return u.num_gpus(v.cast<double>());
  if (k == "memory_bytes") return u.memory_bytes(v.cast<int64_t>());
  if (k == "isolation") return u.isolation(isolation(v.cast<std::string>()));
  if (k == "max_retries") return u.max_retries(v.cast<int>());
  if (k == "on_error") return u.on_error(on_error(v.cast<std::string>()));
  if (k == "timeout") return u.timeout(millis(v));
  if (k == "max_concurrency") return u.max_concurrency(v.cast<int>());
  if (k == "max_failed_rows") return u.max_failed_rows(v.cast<int64_t>());
  if (k == "retry_backoff") {
    auto [initial, max] = v.cast<std::pair<double, double>>();
    return u.retry_backoff(millis(py::float_(initial)), millis(py::float_(max)));
  }
  throw InvalidArgument("unknown UDF setting '" + k +
                        "' (returns, batch_size, concurrency, num_cpus, num_gpus, "
                        "memory_bytes, isolation, max_retries, on_error, timeout, "
                        "max_concurrency, max_failed_rows, retry_backoff)");
}

Udf configured(Udf u, const py::kwargs& settings) {
  for (auto [k, v] : settings) u = apply(std::move(u), k.cast<std::string>(), v);
  return u;
}

InitArgs init_args_from(const py::dict& d) {
  std::map<std::string, Value> items;
  for (auto [k, v] : d) items.emplace(k.cast<std::string>(), to_value(v));
  return InitArgs(std::move(items));
}

/// ember::init with `argv` as the command line worker processes start with.
void init_with(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> ptrs;
  for (std::string& a : copy) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  py::gil_scoped_release release;
  ember::init(static_cast<int>(copy.size()), ptrs.data());
}

}  // namespace

void bind_udf(py::module_& m) {
  py::class_<Udf>(m, "Udf", "A configured UDF; call it on expressions to get an expression.")
      .def_property_readonly("name", &Udf::name)
      .def(
          "__call__",
          [](const Udf& u, py::args args) { return detail::call_udf(u, to_exprs(args, true)); },
          "The expression calling this UDF on the arguments (column names or expressions).")
      .def("__repr__", [](const Udf& u) { return "ember.Udf('" + u.name() + "')"; });
  m.def(
      "_python_udf",
      [](std::string name, py::bytes payload, int64_t token, py::object binding,
         py::kwargs settings) {
        const std::string bytes = payload;
        std::map<std::string, Value> items{
            {"payload", Value{bytes}},  // a str: init args carry bytes as strings
            {"token", Value{token}},
            {"pid", Value{static_cast<int64_t>(::getpid())}}};
        // The binding (class and init args) stays in this process's registry while the Udf
        // lives: its thread actors here construct from it, not from the payload.
        return configured(with_keep_alive(python_udf(std::move(name), InitArgs(std::move(items))),
                                          hold(std::move(binding))),
                          settings);
      },
      py::arg("name"), py::arg("payload"), py::arg("token"), py::arg("binding"));
  m.def(
      "_function_udf",
      [](std::string name, py::object call, std::optional<py::bytes> payload, py::kwargs settings) {
        Udf udf = python_function_udf(std::move(name), std::move(call));
        // Picklable: the cluster runner rebuilds it on the other ranks.
        if (payload) udf = with_portable_function(udf, kPythonFunctionKind, std::string(*payload));
        return configured(std::move(udf), settings);
      },
      py::arg("name"), py::arg("call"), py::arg("payload"));
  m.def(
      "_native_udf",
      [](std::string name, std::string class_name, std::string library, py::dict init_args,
         py::kwargs settings) {
        InitArgs args = init_args_from(init_args);
        std::map<std::string, Value> items = args.items();
        items[kNativeClassKey] = Value{std::move(class_name)};
        if (!library.empty()) items[kNativeLibraryKey] = Value{std::move(library)};
        return configured(native_udf(std::move(name), InitArgs(std::move(items))), settings);
      },
      py::arg("name"), py::arg("class_name"), py::arg("library"), py::arg("init_args"));
  m.def("_load_udf_library", &load_udf_library, py::arg("path"));
  m.def("_registered", [](const std::string& n) { return detail::find_udf_factory(n) != nullptr; });
  m.def("_init", &init_with, py::arg("argv"),
        "ember::init with the worker command line (driver) or serving (worker).");
  m.def(
      "cluster",
      [] {
        ClusterInfo c = cluster();
        py::list members;
        for (const RankInfo& r : c.members)
          members.append(py::dict(py::arg("rank") = r.rank, py::arg("host") = r.host,
                                  py::arg("cpus") = r.resources.cpus,
                                  py::arg("gpus") = r.resources.gpus,
                                  py::arg("memory_bytes") = r.resources.memory_bytes));
        return py::dict(py::arg("ranks") = c.ranks, py::arg("members") = members);
      },
      "The cluster ember.init found: {'ranks': n, 'members': [...]}.");
}

}  // namespace ember::python
