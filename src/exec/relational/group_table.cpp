// Group lookup and insertion; aggregates grow with the groups.
#include "exec/relational/group_table.h"

namespace ember {

GroupTable::GroupTable(std::vector<GroupedAggregate> aggregates)
    : aggregates_(std::move(aggregates)) {}

uint32_t GroupTable::group_of(std::string_view key, uint64_t hash) {
  const auto next = static_cast<int64_t>(size());
  const int64_t g = index_.find_or_insert(
      hash, [&](int64_t other) { return this->key(static_cast<size_t>(other)) == key; }, next);
  if (g == next) {
    arena_.append(key);
    key_start_.push_back(static_cast<int64_t>(arena_.size()));
    hashes_.push_back(hash);
  }
  return static_cast<uint32_t>(g);
}

void GroupTable::add(const EncodedKeys& keys, const std::vector<Column>& inputs) {
  const int64_t n = keys.rows();
  scratch_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    std::string_view k = keys.row(i);
    scratch_[static_cast<size_t>(i)] = group_of(k, hash_key(k));
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    aggregates_[a].resize(size());
    aggregates_[a].update(inputs[a], scratch_);
  }
}

void GroupTable::ensure_empty_key() {
  group_of(std::string_view(), hash_key({}));
  for (auto& a : aggregates_) a.resize(size());
}

}  // namespace ember
