// Python UDF actors: construction and calls under the GIL, Python exceptions as UdfError.
#include "python_udf.h"

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "actor_gil.h"
#include "deferred_gil.h"
#include "padded_numpy.h"
#include "series.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// "ValueError: boom" and the last lines of the traceback, for UdfError's message.
std::string describe(py::error_already_set& e) {
  std::string text = e.what();
  constexpr size_t kMax = 4000;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

py::object actor_context(const ActorContext& a) {
  py::dict d;
  d["actor_id"] = a.actor_id;
  d["gpu_ids"] = a.gpu_ids;
  d["num_cpus"] = a.num_cpus;
  d["memory_bytes"] = a.memory_bytes;
  return d;
}

/// The wait an ember.RetryAfter raised by the call asks for; nullopt for any other exception.
/// Under the GIL.
std::optional<std::chrono::milliseconds> asked_retry(py::error_already_set& e) {
  py::object type = py::module_::import("ember.python_udf").attr("RetryAfter");
  if (!e.matches(type)) return std::nullopt;
  const double seconds = e.value().attr("seconds").cast<double>();
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
}

py::bytes payload_of(const InitArgs& args) { return py::bytes(args.get<std::string>("payload")); }

}  // namespace

EMBER_REGISTER_UDF(PythonUdf);

Udf python_udf(std::string name, InitArgs args) {
  return Udf::cls<PythonUdf>(std::move(name)).init_args(std::move(args));
}

PythonUdf::PythonUdf(const InitArgs& args, const ActorContext& actor) {
  std::string failure;
  {
    ActorGil gil;
    try {
      py::object construct = py::module_::import("ember.python_udf").attr("_construct_actor");
      actor_ = construct(payload_of(args), args.get<int64_t>("token"), args.get<int64_t>("pid"),
                         actor_context(actor));
      return;
    } catch (py::error_already_set& e) {
      failure = describe(e);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  throw UdfError(failure);
}

PythonUdf::~PythonUdf() {
  // At interpreter exit there is no GIL to take: the object is left to the process's end.
  if (!actor_ || !interpreter_alive()) {
    actor_.release();
    return;
  }
  // The last owner may be a thread that holds the GIL already (a session closed from Python
  // with its lock let go of, so not that) or an engine thread that does not.
  if (PyGILState_Check()) {
    actor_ = py::object();
    return;
  }
  ActorGil gil;
  actor_ = py::object();
}

Column PythonUdf::operator()(const Batch& args) {
  std::string failure;
  std::optional<std::chrono::milliseconds> retry_after;
  {
    ActorGil gil;
    run_queued_gil_tasks();  // buffers the engine let go of since the last call
    // A result NumPy allocates in the call becomes the column's buffer, uncopied. Not in a
    // worker process, whose results go to the shared memory the driver reads.
    std::optional<ScopedPaddedNumpy> padded;
    if (!in_worker_process_) padded.emplace();
    try {
      py::tuple series(args.num_columns());
      for (int i = 0; i < args.num_columns(); ++i)
        series[static_cast<size_t>(i)] =
            py::cast(Series{args.schema().field(i).name, args.column(i)});
      py::object result = actor_.attr("call")(args.num_rows(), *series);
      return result.cast<const Series&>().column;
    } catch (py::error_already_set& e) {
      failure = describe(e);
      retry_after = asked_retry(e);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (retry_after) throw RetryAfter(*retry_after, failure);
  throw UdfError(failure);
}

}  // namespace ember::python
