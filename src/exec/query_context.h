// State shared by every thread working on one query: cancellation, the first error, counters.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/error.h"
#include "udf/actor_pool.h"

namespace ember {

class QueryContext {
 public:
  explicit QueryContext(std::vector<std::unique_ptr<ActorPool>>& pools) : pools_(pools) {}

  /// Records the first real error and cancels the query. Thread-safe.
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_ && !is_cancelled_error(e)) error_ = e;
    }
    cancelled_.store(true, std::memory_order_release);
    // Queued batches will not be needed: cancel them now so the query stops promptly. Every
    // pool at once and without waiting, so that none goes on starting workers while another
    // finishes a long call; the executor joins the pools when the query ends.
    for (auto& p : pools_) p->cancel();
  }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  std::exception_ptr error() const {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  ActorPool& pool(int i) { return *pools_.at(static_cast<size_t>(i)); }
  const std::vector<std::unique_ptr<ActorPool>>& pools() const { return pools_; }

  std::atomic<int64_t> rows_read{0};
  std::atomic<int64_t> rows_out{0};
  std::atomic<int64_t> partitions_done{0};
  std::atomic<int64_t> partitions_total{0};

 private:
  static bool is_cancelled_error(std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const Cancelled&) {
      return true;
    } catch (...) {
      return false;
    }
  }
  mutable std::mutex mu_;
  std::exception_ptr error_;
  std::atomic<bool> cancelled_{false};
  std::vector<std::unique_ptr<ActorPool>>& pools_;
};

}  // namespace ember
