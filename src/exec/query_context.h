// State shared by every thread working on one query: cancellation, the first error, counters,
// and the query's actor pools.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/rejected_rows.h"
#include "udf/actor_pool.h"

namespace ember {

/// Threads: the query's driver thread (the one that called execute/collect) makes it and owns
/// the pools; pipeline threads only read it, count, and fail(). A pipeline thread never calls a
/// pool's cancel() or stop(): those run on the driver thread (see cancel_pools).
class QueryContext {
 public:
  /// `downloads`: the names of the plan's url_download steps (PhysicalPlan::downloads), whose
  /// failed rows download_rejected() records.
  explicit QueryContext(std::vector<std::unique_ptr<ActorPool>>& pools,
                        const std::vector<std::string>& downloads = {});

  /// Records the first real error and marks the query cancelled, then runs the driver's
  /// wake-up (see on_cancel) so that the driver thread cancels the pools. Touches no pool and
  /// waits for nothing but a short lock: safe from any thread, concurrently.
  void fail(std::exception_ptr e);
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  std::exception_ptr error() const;

  /// Driver thread: `wake` runs (on the failing thread, under this context's lock, so it must
  /// not block) each time fail() is called; null removes it.
  void on_cancel(std::function<void()> wake);
  /// Driver thread only: ends the service of every pool without waiting for it
  /// (ActorPool::cancel), so that queued work completes at once and the partitions waiting for
  /// it can end. Refused work completes on this thread. Idempotent.
  void cancel_pools();
  /// Driver thread only, after cancel_pools(): gives up the calls still running in every pool
  /// (ActorPool::give_up_running), so that partitions held by a call that never returns end.
  void give_up_pools();
  /// How long a cancelled query waits for its pools' running calls before giving them up: the
  /// longest of its pools' teardown graces.
  std::chrono::milliseconds teardown_grace() const;

  ActorPool& pool(int i) { return *pools_.at(static_cast<size_t>(i)); }
  const std::vector<std::unique_ptr<ActorPool>>& pools() const { return pools_; }
  /// The rows pool i's UDF failed on (OnError::Null or Skip). Any thread.
  RejectedRows& rejected(int i);
  /// Every pool's rejected rows, in pool order. Once the pipelines have ended.
  const std::vector<std::unique_ptr<RejectedRows>>& rejected();
  /// The rows whose file url_download step i could not fetch under OnError::Null. Any thread.
  RejectedRows& download_rejected(int i) { return *download_rejected_.at(static_cast<size_t>(i)); }
  size_t downloads() const { return download_rejected_.size(); }
  /// QueryResult::rejected: every pool's rejected rows, then every url_download's. Once the
  /// pipelines have ended.
  Table rejected_table();

  std::atomic<int64_t> rows_read{0};
  std::atomic<int64_t> rows_out{0};
  std::atomic<int64_t> partitions_done{0};
  std::atomic<int64_t> partitions_total{0};
  /// File bytes this rank's scans read (BatchReader::bytes_read).
  std::atomic<int64_t> bytes_read{0};
  /// Bytes of the output files this rank wrote (OutputSink::bytes_written).
  std::atomic<int64_t> bytes_written{0};
  /// A resumable write: the partitions and output rows earlier runs finished (kept, not run).
  /// Set once by the driver thread before any pipeline starts.
  void note_resumed(int64_t partitions, int64_t rows) {
    partitions_resumed = partitions;
    rows_resumed = rows;
  }
  int64_t partitions_resumed = 0;
  int64_t rows_resumed = 0;

 private:
  mutable std::mutex mu_;
  std::exception_ptr error_;         // guarded by mu_
  std::function<void()> on_cancel_;  // guarded by mu_
  std::atomic<bool> cancelled_{false};
  bool pools_cancelled_ = false;  // driver thread only
  std::vector<std::unique_ptr<ActorPool>>& pools_;
  /// One per pool, made on first use (the pools may be added after this context is made);
  /// guarded by rejected_mu_ (not mu_: fail() calls the wake hook under mu_, and partitions are
  /// made, asking for these, under the lock that hook takes), and never moved once made.
  std::mutex rejected_mu_;
  std::vector<std::unique_ptr<RejectedRows>> rejected_;
  void make_rejected_locked();
  std::vector<std::unique_ptr<RejectedRows>> download_rejected_;  ///< made up front
};

}  // namespace ember
