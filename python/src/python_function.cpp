// Python functions as stateless UDFs: the GIL taken per batch on the pipeline thread, the
// function's exceptions as the call's error, its NumPy result shared when it is fresh.
#include "python_function.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "actor_gil.h"
#include "deferred_gil.h"
#include "padded_numpy.h"
#include "series.h"
#include "udf/portable_function.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// Calls `held` for each batch, under the GIL.
std::function<Column(const Batch&)> calling(std::shared_ptr<py::object> held) {
  return [held](const Batch& args) -> Column {
    std::string failure;
    {
      // A thread that holds the GIL already (Python's own, evaluating inline) keeps it.
      std::optional<ActorGil> gil;
      if (!PyGILState_Check()) gil.emplace();
      run_queued_gil_tasks();
      ScopedPaddedNumpy padded;  // a fresh NumPy result becomes the column's buffer
      try {
        py::tuple series(args.num_columns());
        for (int i = 0; i < args.num_columns(); ++i)
          series[static_cast<size_t>(i)] =
              py::cast(Series{args.schema().field(i).name, args.column(i)});
        py::object result = (*held)(args.num_rows(), *series);
        return result.cast<const Series&>().column;
      } catch (py::error_already_set& e) {
        failure = e.what();
      } catch (const std::exception& e) {
        failure = e.what();
      }
    }
    // The engine names the UDF and its arguments around this message.
    throw std::runtime_error(failure.size() > 4000 ? failure.substr(0, 4000) + "..." : failure);
  };
}

}  // namespace

std::shared_ptr<py::object> hold(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)), [](py::object* o) {
    if (!interpreter_alive()) {  // at exit: left to the process's end
      o->release();
      delete o;
    } else if (PyGILState_Check()) {
      delete o;
    } else {
      run_under_gil([o] { delete o; });
    }
  });
}

Udf python_function_udf(std::string name, py::object call) {
  return Udf::fn(std::move(name), calling(hold(std::move(call))));
}

void register_python_function_maker() {
  register_function_maker(kPythonFunctionKind, [](std::string_view payload) {
    // A rank's thread decoding its order: the GIL for the unpickling.
    std::optional<ActorGil> gil;
    if (!PyGILState_Check()) gil.emplace();
    py::object load = py::module_::import("ember.python_udf").attr("_load_function");
    return calling(hold(load(py::bytes(payload.data(), payload.size()))));
  });
}

}  // namespace ember::python
