// The hash table of a group-by: encoded key -> group number, and each aggregate's states.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/error.h"
#include "exec/relational/grouped_aggregate.h"
#include "exec/relational/key_encoder.h"
#include "exec/relational/key_index.h"

namespace ember {

/// Groups in the order they were first seen. Not thread-safe: one per partition (or per hash
/// partition while partials merge).
class GroupTable {
 public:
  /// `aggregates`: empty states, one per aggregate (copied).
  explicit GroupTable(std::vector<GroupedAggregate> aggregates);
  GroupTable(GroupTable&&) = default;
  GroupTable& operator=(GroupTable&&) = default;

  /// Adds one batch: its encoded keys and each aggregate's input column.
  void add(const EncodedKeys& keys, const std::vector<Column>& inputs);
  /// Adds the groups of `later` (whose rows come after this table's) for which `keep(hash)`
  /// holds, by key.
  template <class Keep>
  void merge(const GroupTable& later, Keep keep);
  /// Appends the groups (keys, hashes, aggregate states) for another rank (group_state_codec.cpp).
  void encode(process::MessageWriter& out) const;
  /// The table encode() wrote; `aggregates` as for the constructor (the same functions and
  /// types as the encoded table's). Error when the bytes are not such an encoding. Built
  /// without its key index (the groups are known to be distinct): a table to merge from (the
  /// `later` of merge()), never to add rows or groups to.
  static GroupTable decode(process::MessageReader& in, std::vector<GroupedAggregate> aggregates);
  /// Makes sure the empty key is a group (a global aggregate over no rows still has one row).
  void ensure_empty_key();

  size_t size() const { return hashes_.size(); }
  /// Group g's encoded key and its hash.
  std::string_view key(size_t g) const {
    return std::string_view(arena_.data() + key_start_[g],
                            static_cast<size_t>(key_start_[g + 1] - key_start_[g]));
  }
  uint64_t hash(size_t g) const { return hashes_[g]; }
  /// Roughly the bytes the table holds (keys, index, per-group states), for the memory budget.
  int64_t estimated_bytes() const {
    return static_cast<int64_t>(arena_.size() + size() * (40 + 32 * aggregates_.size()));
  }
  const std::vector<GroupedAggregate>& aggregates() const { return aggregates_; }

 private:
  uint32_t group_of(std::string_view key, uint64_t hash);
  /// Fills scratch_ with the group of each row of fixed-width `keys` (W bytes each; W == 0:
  /// keys.width, known at run time only).
  template <size_t W>
  void find_fixed_groups(const EncodedKeys& keys);
  /// The group of the w-byte key at `key`, added when new. `uniform`: every key is w bytes.
  template <size_t W>
  uint32_t fixed_group_of(const char* key, size_t w, uint64_t hash, bool uniform);
  /// find_fixed_groups for 9-byte keys through direct_; false (nothing done) when the keys'
  /// numbers span too wide a range for it.
  bool find_direct_groups(const EncodedKeys& keys);

  KeyIndex index_;                     ///< key -> group
  bool indexed_ = true;                ///< false for a decoded table: index_ is empty
  std::string arena_;                  ///< every group's key, one after the other
  std::vector<int64_t> key_start_{0};  ///< group g's key: arena_[key_start_[g], [g + 1])
  /// The width of every key when they all have one, so group g's key is at g * width: -1
  /// before any key, 0 once two widths differ.
  int64_t key_width_ = -1;
  std::vector<uint64_t> hashes_;  ///< per group
  std::vector<GroupedAggregate> aggregates_;
  std::vector<uint32_t> scratch_;       ///< group numbers of the batch being added
  std::vector<uint64_t> batch_hashes_;  ///< key hashes of the batch being added
  /// 9-byte keys whose first byte says "valid" (one 8-byte key, most often an int64) are told
  /// apart by the other 8 bytes, a number: when the first batch's numbers span a small range,
  /// the group of number x is direct_[x - direct_lo_] (kNoGroup until seen), no hash needed.
  std::vector<uint32_t> direct_;
  uint64_t direct_lo_ = 0;
  bool direct_tried_ = false;
  static constexpr uint32_t kNoGroup = UINT32_MAX;
};

template <class Keep>
void GroupTable::merge(const GroupTable& later, Keep keep) {
  if (!indexed_) throw Error("internal: a decoded group table merged into");
  std::vector<uint32_t> into(later.size(), GroupedAggregate::kSkip);
  for (size_t g = 0; g < later.size(); ++g)
    if (keep(later.hashes_[g])) into[g] = group_of(later.key(g), later.hashes_[g]);
  for (auto& a : aggregates_) a.resize(size());
  for (size_t a = 0; a < aggregates_.size(); ++a) aggregates_[a].merge(later.aggregates_[a], into);
}

}  // namespace ember
