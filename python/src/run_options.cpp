// Run options from keyword arguments; queries run off the calling thread so that Ctrl-C works.
#include "run_options.h"

#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ember::python {

namespace {

Resources resources_from(py::handle obj) {
  Resources r;
  py::dict d = obj.cast<py::dict>();
  for (auto [key, value] : d) {
    const std::string k = key.cast<std::string>();
    if (k == "cpus")
      r.cpus = value.cast<double>();
    else if (k == "gpus")
      r.gpus = value.cast<int>();
    else if (k == "memory_bytes")
      r.memory_bytes = value.cast<int64_t>();
    else
      throw InvalidArgument("resources: unknown key '" + k + "' (cpus, gpus, memory_bytes)");
  }
  return r;
}

/// The query running on its own thread, and what it ended with.
template <class R>
struct Running {
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  std::optional<R> result;
  std::exception_ptr error;
};

}  // namespace

RunOptions run_options_from(const py::kwargs& kwargs) {
  RunOptions o;
  for (auto [key, value] : kwargs) {
    const std::string k = key.cast<std::string>();
    if (value.is_none()) continue;
    if (k == "threads")
      o.threads = value.cast<int>();
    else if (k == "progress")
      o.progress = value.cast<bool>();
    else if (k == "memory_budget_bytes")
      o.memory_budget_bytes = value.cast<int64_t>();
    else if (k == "session")
      o.session = value.cast<Session*>();
    else if (k == "resumable")
      o.resumable = value.cast<bool>();
    else if (k == "checkpoint_rows")
      o.checkpoint_rows = value.cast<int64_t>();
    else if (k == "discard_unfinished")
      o.discard_unfinished = value.cast<bool>();
    else if (k == "resources")
      o.resources = resources_from(value);
    else if (k == "wait_for_resources")
      o.wait_for_resources =
          std::chrono::milliseconds(static_cast<int64_t>(value.cast<double>() * 1000.0));
    else
      throw InvalidArgument("unknown run option '" + k +
                            "' (threads, progress, memory_budget_bytes, session, resumable, "
                            "checkpoint_rows, discard_unfinished, resources, "
                            "wait_for_resources)");
  }
  return o;
}

template <class R>
R run_query(RunOptions options, std::function<R(const RunOptions&)> work) {
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  options.cancel = cancel;
  auto state = std::make_shared<Running<R>>();
  std::thread runner([state, options, work = std::move(work)] {
    std::optional<R> result;
    std::exception_ptr error;
    try {
      result.emplace(work(options));
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(state->mu);
    state->result = std::move(result);
    state->error = error;
    state->done = true;
    state->done_cv.notify_all();
  });
  auto wait_for = [&state](std::chrono::milliseconds limit) {
    py::gil_scoped_release release;
    std::unique_lock lock(state->mu);
    return state->done_cv.wait_for(lock, limit, [&state] { return state->done; });
  };
  while (!wait_for(std::chrono::milliseconds(100))) {
    if (PyErr_CheckSignals() == 0) continue;
    // Ctrl-C (or another handler's exception): the query stops (see RunOptions::cancel,
    // which `work` was given) and its worker processes are gone before Python sees the error.
    py::error_already_set interrupted;
    cancel->store(true, std::memory_order_release);
    while (!wait_for(std::chrono::milliseconds(100))) {
    }
    runner.join();
    throw interrupted;
  }
  runner.join();
  if (state->error) std::rethrow_exception(state->error);
  return std::move(*state->result);
}

template Table run_query<Table>(RunOptions, std::function<Table(const RunOptions&)>);
template QueryResult run_query<QueryResult>(RunOptions,
                                            std::function<QueryResult(const RunOptions&)>);
template std::string run_query<std::string>(RunOptions,
                                            std::function<std::string(const RunOptions&)>);

}  // namespace ember::python
