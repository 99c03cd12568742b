// Group lookup and insertion; aggregates grow with the groups.
#include "exec/relational/group_table.h"

namespace ember {

GroupTable::GroupTable(std::vector<GroupedAggregate> aggregates)
    : aggregates_(std::move(aggregates)) {}

uint32_t GroupTable::group_of(std::string_view key, uint64_t hash) {
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  const auto g = static_cast<uint32_t>(keys_.size());
  auto [pos, inserted] = index_.emplace(std::string(key), g);
  keys_.push_back(&pos->first);
  hashes_.push_back(hash);
  bytes_ += static_cast<int64_t>(key.size() + 64);
  return g;
}

void GroupTable::add(const EncodedKeys& keys, const std::vector<Column>& inputs) {
  const int64_t n = keys.rows();
  scratch_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    std::string_view k = keys.row(i);
    scratch_[static_cast<size_t>(i)] = group_of(k, hash_key(k));
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    aggregates_[a].resize(keys_.size());
    aggregates_[a].update(inputs[a], scratch_);
  }
}

void GroupTable::ensure_empty_key() {
  if (index_.count(std::string_view()) == 0) group_of(std::string_view(), hash_key({}));
  for (auto& a : aggregates_) a.resize(keys_.size());
}

}  // namespace ember
