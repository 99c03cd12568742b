// A thread that turns RunOptions::cancel into a failure of the running query.
#include "exec/cancel_watch.h"

#include <chrono>
#include <exception>
#include <utility>

#include "ember/error.h"

namespace ember {

CancelWatch::CancelWatch(QueryContext& query, std::shared_ptr<const std::atomic<bool>> flag)
    : query_(query), flag_(std::move(flag)) {
  if (flag_) thread_ = std::thread([this] { loop(); });
}

CancelWatch::~CancelWatch() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void CancelWatch::loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (flag_->load(std::memory_order_acquire)) {
      query_.fail(std::make_exception_ptr(Error("the query was cancelled")));
      return;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return stop_; });
  }
}

}  // namespace ember
