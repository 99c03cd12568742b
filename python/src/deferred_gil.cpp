// A queue of tasks for the next holder of the GIL.
#include "deferred_gil.h"

#include <Python.h>

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "actor_gil.h"

namespace ember::python {

namespace {

std::mutex g_mutex;
std::vector<std::function<void()>> g_tasks;
std::atomic<bool> g_scheduled{false};  // a pending call to run them is on Python's queue

int run_pending(void*) {
  g_scheduled = false;
  run_queued_gil_tasks();
  return 0;
}

}  // namespace

void run_under_gil(std::function<void()> task) {
  if (!interpreter_alive()) return;
  if (PyGILState_Check()) {
    task();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_tasks.push_back(std::move(task));
  }
  // Py_AddPendingCall needs no GIL; when Python's queue is full the next task tries again (and
  // actors run the tasks meanwhile).
  if (!g_scheduled.exchange(true) && Py_AddPendingCall(run_pending, nullptr) != 0)
    g_scheduled = false;
}

void run_queued_gil_tasks() {
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    tasks.swap(g_tasks);
  }
  for (auto& task : tasks) task();
}

}  // namespace ember::python
