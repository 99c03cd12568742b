// The role of a pipeline's end: a sink that partitions feed in parallel, with state per
// partition (local) and per pipeline run (global): Sink -> Combine -> Finalize.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ember/batch.h"
#include "ember/error.h"

namespace ember {

/// A sink's state for one run of its pipeline, shared by every partition: whatever the sink
/// gathers. Made and finalized on the query's driver thread; between those, partitions reach it
/// concurrently, so it guards itself.
class GlobalSinkState {
 public:
  virtual ~GlobalSinkState() = default;
  /// This state as the sink's own type; each sink is handed only the states it made.
  template <class T>
  T& as() {
    return static_cast<T&>(*this);
  }
  template <class T>
  const T& as() const {
    return static_cast<const T&>(*this);
  }
  /// Bytes the sink may hold before it spills to temporary files (set by the executor before
  /// any partition starts; 0 = unlimited).
  int64_t memory_budget_bytes = 0;
};

/// A sink's state for one partition: used by one thread at a time, needs no locks.
class LocalSinkState {
 public:
  virtual ~LocalSinkState() = default;
  template <class T>
  T& as() {
    return static_cast<T&>(*this);
  }
  template <class T>
  const T& as() const {
    return static_cast<const T&>(*this);
  }
};

/// Where a partition starts when an earlier run of its query already finished part of it (a
/// resumable write, RunOptions::resumable): nothing left to run, or the rows of its input to
/// skip (a partition's rows come in the same order every run).
struct PartitionStart {
  bool finished = false;  ///< the whole partition is done: it runs nothing and is combined
  int64_t skip_rows = 0;  ///< rows of its input already written
};

/// Where a pipeline's partitions end. Plain data made by the physical planner (const); all it
/// gathers lives in its states. See PipelineBreaker and OutputSink for what finalize yields.
class Sink {
 public:
  virtual ~Sink() = default;
  /// A fresh state for one run over `num_partitions` partitions. Driver thread.
  virtual std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const = 0;
  /// The state of `partition`, made on the pipeline thread that starts it.
  virtual std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                                      int partition) const = 0;
  /// Whether the partition's next batch may go in now (as Velox's isBlocked and DuckDB's
  /// SinkResultType::BLOCKED): true, and room for that one batch is taken (its driver calls
  /// sink() with it at once); false when a bounded queue behind the sink is full. The sink then
  /// calls `wake` once, from any thread, when there may be room again (or its query ended), and
  /// the partition's driver returns Blocked meanwhile: no pipeline thread ever parks in a sink.
  /// `wake` may be called after the partition has ended (it then does nothing). By default
  /// always ready.
  virtual bool ready(GlobalSinkState& global, LocalSinkState& local,
                     const std::function<void()>& wake) const {
    (void)global, (void)local, (void)wake;
    return true;
  }
  /// One batch of a partition, in the partition's order.
  virtual void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const = 0;
  /// The partition's input ended normally (or it is full()): its local state merges into the
  /// global one. Not called for a partition of a query that fails or stops early.
  virtual void combine(GlobalSinkState& global, LocalSinkState& local) const = 0;
  /// How partition `partition` starts (resumable writes). Its driver's thread, once, before
  /// any of its rows. By default from the beginning.
  virtual PartitionStart start_of(const GlobalSinkState& global, int partition) const {
    (void)global, (void)partition;
    return {};
  }
  /// Rows a partition reads between checkpoints (0: none). Any thread.
  virtual int64_t checkpoint_rows(const GlobalSinkState& global) const {
    (void)global;
    return 0;
  }
  /// Every row of the partition's first `input_rows` input rows (skipped ones included) has
  /// reached sink() or was dropped on the way, and nothing more has: the sink makes what it
  /// has of the partition durable, so that a rerun can start after them. The partition's
  /// thread.
  virtual void checkpoint(GlobalSinkState& global, LocalSinkState& local,
                          int64_t input_rows) const {
    (void)global, (void)local, (void)input_rows;
  }
  /// True when this partition needs no more rows (it met a limit alone): it ends, combined.
  virtual bool full(const LocalSinkState&) const { return false; }
  /// At most this many rows of each partition can matter (a limit's n), or -1: a partition that
  /// runs on another rank and sends its rows may stop after that many.
  virtual int64_t rows_per_partition() const { return -1; }
  /// Whether a partition may run on another rank, into that rank's copy of this sink, and come
  /// here as its state (encode_partial there, adopt_partial here) instead of as its rows: an
  /// aggregate's partial states are a fraction of its input. False by default.
  virtual bool ships_partials() const { return false; }
  /// With ships_partials(), on the rank that runs the partition: true once its state has grown to
  /// its share of the memory budget. Its later rows then travel as rows, sunk into the
  /// partition's state where it is adopted, so neither rank holds more than its budget.
  virtual bool partial_full(GlobalSinkState& global, LocalSinkState& local) const {
    (void)global, (void)local;
    return false;
  }
  /// Here, for a partition whose state another rank ships: a batch of the rows that travelled
  /// once that state was full, in the partition's order (sink() by default).
  virtual void sink_after_partial(GlobalSinkState& global, LocalSinkState& local,
                                  const Batch& batch) const {
    sink(global, local, batch);
  }
  /// On the rank that ran the partition, once its input ended (instead of combine()): its state
  /// as bytes.
  virtual std::string encode_partial(GlobalSinkState& global, LocalSinkState& local) const {
    (void)global, (void)local;
    throw Error("internal: this sink ships no partial states");
  }
  /// Here, before the partition's combine(): the state another rank's encode_partial() wrote
  /// becomes the partition's, as if its rows had been sunk here, before those of
  /// sink_after_partial().
  virtual void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                             std::string_view bytes) const {
    (void)global, (void)local, (void)bytes;
    throw Error("internal: this sink adopts no partial states");
  }
  /// With ships_partials(), what the other ranks send for a partition (explain()).
  virtual std::string partials_summary() const {
    return "partial states (aggregates, a top-k's best rows)";
  }
  /// With ships_partials(): whether the partial states can instead be split into shares by
  /// key, each share merged and finalized on a rank of its own (a hash exchange between ranks)
  /// and the shares' results merged by finalize_shares(). False by default.
  virtual bool exchanges_partials() const { return false; }
  /// With exchanges_partials(), once the partition's input ended (instead of combine()): its
  /// state as `shares` encodings, share q holding the keys that rank q merges, each the bytes
  /// adopt_partial() takes (the same for every rank's copy of the sink), and the number of
  /// groups (rows) in each.
  struct Share {
    std::string bytes;
    int64_t rows = 0;
  };
  virtual std::vector<Share> encode_partial_shares(GlobalSinkState& global, LocalSinkState& local,
                                                   int shares) const {
    (void)global, (void)local, (void)shares;
    throw Error("internal: this sink exchanges no partial states");
  }
  /// True when the whole pipeline needs no more input (a global limit was met): partitions
  /// stop without combining. Any thread.
  virtual bool satisfied(const GlobalSinkState&) const { return false; }
};

}  // namespace ember
