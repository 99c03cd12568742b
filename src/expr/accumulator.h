// The running state of one aggregate function (sum, count, min, max, mean) over a stream of
// columns, and the merge of partial states computed over different partitions.
#pragma once

#include <cstdint>
#include <string>

#include "ember/column.h"
#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

/// One aggregate's partial result. Nulls are skipped. A partition's batches are fed in order,
/// and partial states merged in partition order, so a float sum is the same on every run.
/// Not thread-safe: one accumulator per partition.
class Accumulator {
 public:
  /// `label` names the aggregate in errors (e.g. "x.sum()").
  Accumulator(AggFunc f, DataType input, DataType result, std::string label);

  /// Adds the non-null values of one batch of the aggregate's input (of the `input` type).
  void update(const Column& values);
  /// Adds a partial state computed over rows that come after this one's.
  void merge(const Accumulator& later);
  /// The running state, as another rank needs it to merge this one's (exec ships it).
  struct State {
    int64_t count = 0;
    __int128 int_sum = 0;
    double float_sum = 0;
    Value best;
  };
  State state() const { return {count_, int_sum_, float_sum_, best_}; }
  /// Replaces the running state with one state() returned (same function and types).
  void set_state(State s) {
    count_ = s.count;
    int_sum_ = s.int_sum;
    float_sum_ = s.float_sum;
    best_ = std::move(s.best);
  }
  /// The final value as a one-row column of the result type. InvalidArgument when an int64
  /// sum does not fit in int64.
  Column finish() const;

 private:
  template <class T>
  void update_numeric(const Column& values);
  void update_bool(const Column& values);
  void update_utf8(const Column& values);
  void offer(const Value& candidate);

  AggFunc func_;
  DataType input_;
  DataType result_;
  std::string label_;
  int64_t count_ = 0;     ///< non-null values seen
  __int128 int_sum_ = 0;  ///< wide, so that overflow is detected once, at the end
  double float_sum_ = 0;
  Value best_;  ///< min / max so far; monostate before the first value
};

}  // namespace ember
