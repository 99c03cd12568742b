// Sorted runs: a partition's rows in key order, and the stable k-way merge of several runs.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/batch.h"
#include "exec/relational/row_order.h"
#include "expr/expr_node.h"

namespace ember {

/// Rows in key order, with their evaluated key columns beside them.
struct SortedRun {
  Batch rows;
  std::vector<Column> keys;
};

/// A partition's rows gathered batch by batch, with the sort keys evaluated as they come.
class RunBuilder {
 public:
  RunBuilder(const Schema& schema, const std::vector<ExprPtr>& key_exprs)
      : schema_(schema), key_exprs_(key_exprs) {}
  void add(const Batch& batch);
  int64_t rows() const { return rows_; }
  /// The rows so far, sorted (stable), only the first `limit` (< 0: all); resets the builder.
  SortedRun finish(const std::vector<KeyOrder>& order, int64_t limit);
  /// The rows so far as they came, already in key order (a run sorted elsewhere); resets the
  /// builder.
  SortedRun finish_sorted();

 private:
  const Schema& schema_;
  const std::vector<ExprPtr>& key_exprs_;
  std::vector<Batch> batches_;
  std::vector<std::vector<Column>> keys_;  ///< per batch, one per key
  int64_t rows_ = 0;
};

/// The rows of `runs` in key order, ties in run order then row order; only the first `limit`
/// rows (< 0: all).
Batch merge_runs(const std::vector<SortedRun>& runs, const Schema& schema,
                 const std::vector<KeyOrder>& order, int64_t limit);

}  // namespace ember
