// Drives one partition through a pipeline: read, transform, feed asynchronous operators, sink.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "exec/physical_plan.h"
#include "exec/query_context.h"
#include "exec/sink.h"
#include "exec/task_scheduler.h"

namespace ember {

/// Rows per morsel read from a source.
inline constexpr int64_t kMorselRows = 64 * 1024;
/// Rows per expression evaluation: 8K int64 values (64 KiB) per intermediate column fit in L2.
inline constexpr int64_t kEvalRows = 8 * 1024;

/// A resumable task for one partition. Segment k of the pipeline's streaming operators feeds
/// asynchronous stage k; the last segment feeds the sink. run() never waits for an actor: it
/// returns Blocked and is woken by a completion.
class PartitionDriver : public Task {
 public:
  PartitionDriver(QueryContext& query, const Pipeline& pipeline, const Source& source,
                  int partition, const Sink& sink, GlobalSinkState& sink_state,
                  TaskScheduler& scheduler, std::shared_ptr<Prefetched> ahead = nullptr);
  ~PartitionDriver() override { disown(); }
  Step run() override;
  int partition() const { return partition_; }
  /// From now on, a sink's late wake-up (Sink::ready) for this driver does nothing. Before the
  /// scheduler goes.
  void disown();

 private:
  /// What a sink's wake-up reaches: this driver until it is disowned.
  struct Waker {
    std::mutex mu;
    PartitionDriver* driver = nullptr;  // guarded by mu
  };
  bool step();
  void push(size_t segment, Batch batch);
  void push_slice(size_t segment, Batch batch);
  bool drain_stages();
  /// Hands the batches waiting for the sink to it, in order; false when the sink is blocked
  /// (it wakes this driver when it has room).
  bool flush_sink();
  int64_t in_flight() const;
  /// The partition's first step: where it starts (Sink::start_of) and its checkpoints.
  void begin_partition();
  /// What of `batch` (just read) runs: not the rows an earlier run finished, and not past the
  /// next checkpoint (the rest waits in held_).
  Batch cut_input(Batch batch);
  bool checkpoint_due() const { return checkpoint_every_ > 0 && window_left_ == 0; }
  /// Once every row read so far has reached the sink, has the sink checkpoint; false while
  /// rows are still on their way.
  bool checkpoint_when_caught_up();
  void finish_partition();
  Step stop();

  QueryContext& query_;
  const Pipeline& pipeline_;
  const Source& source_;
  int partition_;
  const Sink& sink_;
  GlobalSinkState& sink_state_;
  TaskScheduler& scheduler_;
  std::unique_ptr<BatchReader> reader_;
  int64_t rows_dropped_ = 0;  ///< reader_->rows_dropped() already counted in rows_read
  int64_t bytes_read_ = 0;    ///< reader_->bytes_read() already counted in the query's
  std::unique_ptr<LocalSinkState> local_;
  std::vector<std::unique_ptr<AsyncOperatorState>> stages_;
  bool source_done_ = false;
  /// Resumable writes: rows of the partition's input consumed (those skipped included), rows
  /// still to skip, rows between checkpoints (0: none) and left before the next one, and the
  /// rest of a morsel cut at a checkpoint.
  int64_t input_rows_ = 0;
  int64_t skip_rows_ = 0;
  int64_t checkpoint_every_ = 0;
  int64_t window_left_ = 0;
  std::optional<Batch> held_;
  bool stopping_ = false;  ///< cancelled or limit met: wait for in-flight work, then end
  /// Output batches the sink could not take yet, in order. While any wait, nothing new is read
  /// or drained, so they are at most one morsel's worth.
  std::deque<Batch> to_sink_;
  std::shared_ptr<Waker> waker_;
  std::shared_ptr<Prefetched> ahead_;  ///< the source's input fetched ahead, until opened
  std::function<void()> sink_wake_;    ///< handed to Sink::ready
};

}  // namespace ember
