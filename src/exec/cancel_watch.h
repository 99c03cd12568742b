// Watching RunOptions::cancel: a flag set from outside the query fails it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "exec/query_context.h"

namespace ember {

/// While it lives, checks `flag` every 20 ms on a thread of its own and, once the flag is set,
/// fails `query` (QueryContext::fail, which is safe from any thread) with ember::Error("the
/// query was cancelled"). A null flag starts nothing. Made and destroyed by the driver thread;
/// destroy it before the query context.
class CancelWatch {
 public:
  CancelWatch(QueryContext& query, std::shared_ptr<const std::atomic<bool>> flag);
  /// Stops the watching thread and joins it.
  ~CancelWatch();
  CancelWatch(const CancelWatch&) = delete;
  CancelWatch& operator=(const CancelWatch&) = delete;

 private:
  void loop();
  QueryContext& query_;
  std::shared_ptr<const std::atomic<bool>> flag_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace ember
