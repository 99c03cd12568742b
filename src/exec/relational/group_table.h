// The hash table of a group-by: encoded key -> group number, and each aggregate's states.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exec/relational/grouped_aggregate.h"
#include "exec/relational/key_encoder.h"

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
  /// Makes sure the empty key is a group (a global aggregate over no rows still has one row).
  void ensure_empty_key();

  size_t size() const { return keys_.size(); }
  /// Group g's encoded key and its hash.
  std::string_view key(size_t g) const { return *keys_[g]; }
  uint64_t hash(size_t g) const { return hashes_[g]; }
  const std::vector<GroupedAggregate>& aggregates() const { return aggregates_; }
  /// Bytes held, roughly (keys and table overhead).
  int64_t bytes() const { return bytes_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return hash_key(s); }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  uint32_t group_of(std::string_view key, uint64_t hash);

  std::unordered_map<std::string, uint32_t, Hash, Eq> index_;
  std::vector<const std::string*> keys_;  ///< into index_'s nodes, which never move
  std::vector<uint64_t> hashes_;
  std::vector<GroupedAggregate> aggregates_;
  std::vector<uint32_t> scratch_;  ///< group numbers of the batch being added
  int64_t bytes_ = 0;
};

template <class Keep>
void GroupTable::merge(const GroupTable& later, Keep keep) {
  std::vector<uint32_t> into(later.size(), GroupedAggregate::kSkip);
  for (size_t g = 0; g < later.size(); ++g)
    if (keep(later.hashes_[g])) into[g] = group_of(later.key(g), later.hashes_[g]);
  for (auto& a : aggregates_) a.resize(keys_.size());
  for (size_t a = 0; a < aggregates_.size(); ++a) aggregates_[a].merge(later.aggregates_[a], into);
}

}  // namespace ember
