// Copies a worker's stdout and stderr to the driver's stderr, line by line, each line prefixed
// with the actor it came from ("[speller #1] ..."), on a thread of its own so that a chatty
// worker can never fill a pipe and stall either side.
#pragma once

#include <string>
#include <thread>

#include "udf/process/unique_fd.h"

namespace ember::process {

class OutputRelay {
 public:
  /// Longest piece written without a newline: longer runs are cut into lines of this size.
  static constexpr size_t kMaxLineBytes = 64 * 1024;

  /// Starts relaying the read ends `out` and `err` to `sink` (the driver's stderr by default).
  /// Throws Error if the thread or its wake-up descriptor cannot be created.
  OutputRelay(std::string prefix, UniqueFd out, UniqueFd err, int sink = 2);
  /// Same as finish().
  ~OutputRelay();
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  /// Relays what is still buffered in the pipes, flushes partial lines and joins the thread.
  /// Call after the worker exited; it does not wait for a pipe that someone else (a process
  /// the worker started) keeps open. Idempotent; from the owning thread only.
  void finish();

 private:
  void run();
  std::string prefix_;
  UniqueFd out_, err_;
  int sink_;
  UniqueFd wake_;  ///< eventfd: finish() asks the thread to drain and stop
  std::thread thread_;
};

}  // namespace ember::process
