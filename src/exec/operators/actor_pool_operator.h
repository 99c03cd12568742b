// A stateful UDF on an actor pool: each partition re-batches its rows to the UDF's batch_size,
// dispatches them, re-sequences the results into input order within a bounded window, and,
// under OnError::Null or Skip, isolates the rows of a failed chunk whose own call fails.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exec/async_operator.h"
#include "exec/rejected_rows.h"
#include "udf/actor_pool.h"
#include "udf/failure_policy.h"

namespace ember {

/// Appends the UDF's result column to every input row. Plain data; see PoolStage for the state.
class ActorPoolOperator final : public AsyncOperator {
 public:
  /// `pool` indexes the query's pools (PhysicalPlan::pools); the actors get the input columns
  /// `arg_indices`, named `arg_names`; `output` is the input schema plus the result column.
  ActorPoolOperator(int pool, std::vector<int> arg_indices, std::vector<std::string> arg_names,
                    Schema output);
  std::unique_ptr<AsyncOperatorState> local_state(QueryContext& query, int partition,
                                                  std::function<void()> wake) const override;

  int pool() const { return pool_; }
  /// The same operator on the query's pool `pool` (a plan that runs fewer pools renumbers them).
  std::shared_ptr<const ActorPoolOperator> with_pool(int pool) const {
    auto copy = std::make_shared<ActorPoolOperator>(*this);
    copy->pool_ = pool;
    return copy;
  }
  /// The batch the actors see for `chunk`: its argument columns, named as the UDF expects.
  Batch arguments(const Batch& chunk) const;
  const Schema& output() const { return output_; }

 private:
  int pool_;
  std::vector<int> arg_indices_;
  std::vector<std::string> arg_names_;
  Schema output_;
  Schema arg_schema_;  ///< the argument columns' names and types, built once
};

/// One partition's view of an actor pool. feed/flush/next_ready run on the partition's driver
/// thread; completions arrive on actor threads (or on the thread that cancels the pool).
///
/// Under OnError::Null or Skip, a chunk whose call failed (after its retries) is split in 8
/// pieces (fewer for fewer rows; FailurePolicy::split_parts) and each dispatched again, recursively
/// down to single rows, from the completion itself; the chunk is complete once every piece is. Its
/// pieces' results are reassembled in row order, the rows whose own call failed get a null (Null)
/// or are dropped (Skip), and they are recorded in the query's RejectedRows when the chunk is
/// emitted, in order.
///
/// Isolation re-runs a failed call's rows again, so after a failure the stage hands the
/// chunks that follow to the pool in pieces of batch_size / 16 rows (never below 64, nor above
/// batch_size): a failing row then costs a small piece's re-runs, not a whole batch's. Each run
/// of 16 pieces that succeed doubles the piece size again, back up to batch_size
/// (FailurePolicy::after_call). The pieces
/// of a chunk are reassembled like isolation's, so results and their order do not change.
class PoolStage final : public AsyncOperatorState {
 public:
  /// `wake` is called after each completion, under the stage's lock.
  PoolStage(const ActorPoolOperator& op, ActorPool& pool, RejectedRows& rejected, int partition,
            std::function<void()> wake);

  /// Appends rows; dispatches every full batch_size chunk.
  void feed(const Batch& input) override;
  /// Upstream ended: dispatches the remainder.
  void flush() override;
  bool flushed() const override { return flushed_; }
  /// True while fewer than the window's chunks are in flight.
  bool can_accept() const override;
  /// The next output batch in input order (input columns + the UDF's column), if it is back.
  /// Rethrows the call's error (under Raise), and throws UdfError past max_failed_rows.
  std::optional<Batch> next_ready() override;
  /// Upstream ended and every chunk came back and was emitted.
  bool drained() const override;
  /// Dispatches the rows held back for a full chunk.
  void release_held() override;
  /// No rows held back, and every chunk dispatched was emitted.
  bool caught_up() const override { return pending_rows_ == 0 && next_emit_ == next_seq_; }
  int64_t in_flight() const override;

 private:
  /// One dispatched chunk: its rows, and its calls (the whole chunk, or the pieces a failed one
  /// was split into). Slots of the ring are reused, keeping their vectors' capacity.
  struct ChunkCalls {
    Batch input;     ///< the chunk's rows, joined with the result on emission
    int pieces = 0;  ///< dispatched and not yet completed
    /// Result of each finished piece, by its first row (in completion order).
    std::vector<std::pair<int64_t, Column>> parts;
    std::vector<std::pair<int64_t, std::string>> failed;  ///< rows whose own call failed
    std::exception_ptr error;                             ///< ends the query
  };

  void dispatch(Batch chunk);
  /// Hands rows [offset, offset + args.num_rows()) of chunk `seq` to the pool. Any thread.
  /// `first` marks a piece cut by dispatch (not by isolation): its outcome sizes later pieces.
  void call_piece(int64_t seq, int64_t offset, Batch args, bool first);
  void complete(int64_t seq, int64_t offset, Batch args, bool first, CallResult result);
  /// The message of a failed piece that is split or nulled rather than failing the query;
  /// nullopt when it fails the query. One rethrow: a failing row fails many pieces.
  std::optional<std::string> isolation_message(const std::exception_ptr& error) const;
  /// The output of a complete chunk: its input columns plus the reassembled result, failed rows
  /// nulled or dropped (possibly every row: an empty batch); records them as rejected.
  Batch assemble(int64_t seq, ChunkCalls& calls);
  /// The ring slot of chunk `seq` (dispatched, not yet emitted). Under mu_.
  ChunkCalls& slot(int64_t seq) { return ring_[static_cast<size_t>(seq) & (ring_.size() - 1)]; }

  const ActorPoolOperator& op_;
  ActorPool& pool_;
  RejectedRows& rejected_;
  int partition_;
  std::function<void()> wake_;
  int64_t batch_size_;
  int64_t window_;
  FailurePolicy policy_;

  std::vector<Batch> pending_;  ///< rows fed but not yet a full chunk (driver thread only)
  int64_t pending_rows_ = 0;
  bool flushed_ = false;
  int64_t next_seq_ = 0;   ///< driver thread only
  int64_t next_emit_ = 0;  ///< driver thread only
  ChunkCalls emitting_;    ///< the chunk being emitted, swapped out of its slot (driver only)

  mutable std::mutex mu_;
  /// Chunks [next_emit_, next_seq_) by sequence number modulo its size, a power of two that
  /// doubles when a feed dispatches more chunks than it holds: no allocation per chunk.
  std::vector<ChunkCalls> ring_;
  int64_t outstanding_ = 0;  ///< pieces dispatched, not yet completed
  PieceSizing sizing_;       ///< rows per piece dispatch cuts a chunk into
};

}  // namespace ember
