// One aggregate function's running state for many groups at once (a group-by's columns).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/column.h"
#include "ember/types.h"
#include "expr/expr_node.h"
#include "udf/process/wire_message.h"

namespace ember {

/// The states of one aggregate (sum, count, min, max, mean, count_distinct, first, list), one
/// per group, addressed by group number. Nulls are skipped except by first() and list(). Not
/// thread-safe: one per partition's table.
class GroupedAggregate {
 public:
  /// `label` names the aggregate in errors (e.g. "x.sum()").
  GroupedAggregate(AggFunc f, DataType input, DataType result, std::string label);

  /// Makes room for groups [0, groups).
  void resize(size_t groups);
  /// The groups it has room for.
  size_t groups() const { return count_.size(); }
  /// Adds row i of `values` to group `group_of[i]`.
  void update(const Column& values, const std::vector<uint32_t>& group_of);
  /// Adds group g of `later` (whose rows come after this one's) to group `into[g]`; groups
  /// mapped to kSkip are left out.
  void merge(const GroupedAggregate& later, const std::vector<uint32_t>& into);
  /// One row per group, groups in `order`. InvalidArgument when an int64 sum overflows.
  Column finish(const std::vector<uint32_t>& order) const;

  /// Appends every group's state (group_state_codec.cpp): another rank merges it after decode().
  void encode(process::MessageWriter& out) const;
  /// Replaces the states with those encode() wrote, for an aggregate of the same function and
  /// types. Error when the bytes are not such an encoding.
  void decode(process::MessageReader& in);

  /// A group that merge() leaves out.
  static constexpr uint32_t kSkip = UINT32_MAX;

 private:
  void update_sum(const Column& values, const std::vector<uint32_t>& group_of);
  void update_best(const Column& values, const std::vector<uint32_t>& group_of);
  void offer(size_t g, const Value& candidate);
  Column finish_group(size_t g) const;

  AggFunc func_;
  DataType input_;
  DataType result_;
  std::string label_;
  std::vector<int64_t> count_;     ///< non-null values seen (first, list: rows seen)
  std::vector<__int128> int_sum_;  ///< wide, so that overflow is detected once, at the end
  std::vector<double> float_sum_;
  std::vector<Value> best_;  ///< min / max so far, or first; monostate before any
  std::vector<std::unordered_set<std::string>> distinct_;  ///< encoded values
  std::vector<std::vector<Value>> items_;                  ///< list: the values in input order
};

}  // namespace ember
