// A live progress line on stderr while a query runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "exec/query_context.h"

namespace ember {

/// Redraws one line in place on a terminal; on a pipe or file it prints a plain line every
/// few seconds instead, so redirected output is never garbled with carriage returns.
class ProgressBar {
 public:
  /// `ranks` > 1: the query's actors are spread over that many MPI ranks (the line says so;
  /// its actor counts are the whole cluster's).
  ProgressBar(const QueryContext& query, bool enabled, int ranks = 1);
  ~ProgressBar() { stop(); }
  /// Prints the final figures and ends the line. Idempotent.
  void stop();

 private:
  void loop();
  std::string render() const;
  const QueryContext& query_;
  bool enabled_;
  int ranks_ = 1;
  bool tty_ = false;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ember
