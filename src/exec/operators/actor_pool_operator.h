// A stateful UDF on an actor pool: each partition re-batches its rows to the UDF's batch_size,
// dispatches them, and re-sequences the results into input order within a bounded window.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "exec/async_operator.h"
#include "udf/actor_pool.h"

namespace ember {

/// Appends the UDF's result column to every input row. Plain data; see PoolStage for the state.
class ActorPoolOperator final : public AsyncOperator {
 public:
  /// `pool` indexes the query's pools (PhysicalPlan::pools); the actors get the input columns
  /// `arg_indices`, named `arg_names`; `output` is the input schema plus the result column.
  ActorPoolOperator(int pool, std::vector<int> arg_indices, std::vector<std::string> arg_names,
                    Schema output);
  std::unique_ptr<AsyncOperatorState> local_state(QueryContext& query,
                                                  std::function<void()> wake) const override;

  int pool() const { return pool_; }
  /// The batch the actors see for `chunk`: its argument columns, named as the UDF expects.
  Batch arguments(const Batch& chunk) const;
  const Schema& output() const { return output_; }

 private:
  int pool_;
  std::vector<int> arg_indices_;
  std::vector<std::string> arg_names_;
  Schema output_;
};

/// One partition's view of an actor pool. feed/flush/next_ready run on the partition's driver
/// thread; completions arrive on actor threads (or on the thread that cancels the pool).
class PoolStage final : public AsyncOperatorState {
 public:
  /// `wake` is called after each completion, under the stage's lock.
  PoolStage(const ActorPoolOperator& op, ActorPool& pool, std::function<void()> wake);

  /// Appends rows; dispatches every full batch_size chunk.
  void feed(const Batch& input) override;
  /// Upstream ended: dispatches the remainder.
  void flush() override;
  bool flushed() const override { return flushed_; }
  /// True while fewer than the window's chunks are in flight.
  bool can_accept() const override;
  /// The next output batch in input order (input columns + the UDF's column), if it is back.
  /// Rethrows the call's error.
  std::optional<Batch> next_ready() override;
  /// Upstream ended and every chunk came back and was emitted.
  bool drained() const override;
  int64_t in_flight() const override;

 private:
  void dispatch(Batch chunk);
  void complete(int64_t seq, CallResult result);

  const ActorPoolOperator& op_;
  ActorPool& pool_;
  std::function<void()> wake_;
  int64_t batch_size_;
  int64_t window_;

  std::vector<Batch> pending_;
  int64_t pending_rows_ = 0;
  bool flushed_ = false;
  int64_t next_seq_ = 0;
  int64_t next_emit_ = 0;
  std::map<int64_t, Batch> inputs_;  ///< chunks awaiting their results (driver thread only)

  mutable std::mutex mu_;
  std::map<int64_t, CallResult> results_;  ///< completed, not yet emitted
  int64_t outstanding_ = 0;                ///< dispatched, not yet completed
};

}  // namespace ember
