// The breaker of a sort: each partition sorts its own rows into a run on its pipeline thread;
// finalize merges the runs.
#pragma once

#include <vector>

#include "exec/pipeline_breaker.h"
#include "exec/relational/row_order.h"
#include "exec/relational/sorted_run.h"
#include "expr/expr_node.h"

namespace ember {

/// Sorts every row by the key expressions (stable), or keeps only the first `limit` rows in
/// that order (top-k: each partition keeps at most `limit` rows while it runs).
class SortSink final : public PipelineBreaker {
 public:
  /// `limit` < 0: a full sort.
  SortSink(std::vector<ExprPtr> keys, std::vector<KeyOrder> order, Schema schema, int64_t limit);
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  /// Sorts the partition's rows into a run, on the partition's pipeline thread.
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// A partition run on another rank travels sorted: a top-k's as its best `limit` rows, a full
  /// sort's as all its rows in key order (until they pass half the partition's share of the
  /// budget; later rows travel as rows), so that the rank that merges does not sort them again.
  bool ships_partials() const override { return true; }
  bool partial_full(GlobalSinkState& global, LocalSinkState& local) const override;
  std::string encode_partial(GlobalSinkState& global, LocalSinkState& local) const override;
  void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                     std::string_view bytes) const override;
  std::string partials_summary() const override {
    return limit_ >= 0 ? "best rows (a top-k)" : "rows, sorted";
  }
  /// The runs merged (ties to the earlier partition), cut into contiguous partitions.
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;
  /// A full sort whose every key is a column of its rows: those columns, in its orders.
  std::optional<RangeKeys> range_keys() const override;
  /// Each partition's runs, in the order its rows came (spilled ones read back), tagged by
  /// partition then by their order within it.
  std::vector<TaggedRun> key_runs(GlobalSinkState& global) const override;

 private:
  SortedRun best_rows(LocalSinkState& local) const;

  std::vector<ExprPtr> keys_;
  std::vector<KeyOrder> order_;
  Schema schema_;
  int64_t limit_;
};

}  // namespace ember
