// Building the join index: rows chained per key, inserted back to front so chains run in
// build order.
#include "exec/relational/join_hash_table.h"

namespace ember {

void JoinHashTable::build(Batch rows) {
  rows_ = std::move(rows);
  const int64_t n = rows_.num_rows();
  std::vector<Column> keys;
  for (int k : key_indices_) keys.push_back(rows_.column(k));
  encode_keys(keys, n, keys_);
  head_.clear();
  head_.reserve(static_cast<size_t>(n));
  next_.assign(static_cast<size_t>(n), -1);
  for (int64_t r = n - 1; r >= 0; --r) {
    if (keys_.any_null[static_cast<size_t>(r)]) continue;
    auto [it, inserted] = head_.try_emplace(keys_.row(r), r);
    if (!inserted) {
      next_[static_cast<size_t>(r)] = it->second;
      it->second = r;
    }
  }
  matched_ = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) matched_[static_cast<size_t>(r)].store(0);
}

std::vector<int64_t> JoinHashTable::unmatched_rows() const {
  std::vector<int64_t> out;
  for (int64_t r = 0; r < rows_.num_rows(); ++r)
    if (!matched_[static_cast<size_t>(r)].load(std::memory_order_relaxed)) out.push_back(r);
  return out;
}

}  // namespace ember
