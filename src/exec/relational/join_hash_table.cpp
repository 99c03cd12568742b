// Building the join index: the first row of each key in the index, the others chained behind
// it in build order.
#include "exec/relational/join_hash_table.h"

namespace ember {

void JoinHashTable::build(Batch rows) {
  rows_ = std::move(rows);
  const int64_t n = rows_.num_rows();
  std::vector<Column> keys;
  for (int k : key_indices_) keys.push_back(rows_.column(k));
  index_ = KeyIndex();
  index_.reserve(static_cast<size_t>(n));
  next_.assign(static_cast<size_t>(n), -1);
  std::vector<int64_t> last(static_cast<size_t>(n), -1);  ///< per first row: its chain's end
  // Chains row r behind the first row of its key (head).
  unique_keys_ = true;
  auto chain = [&](int64_t r, int64_t head) {
    if (head == r) {
      last[static_cast<size_t>(r)] = r;
      return;
    }
    unique_keys_ = false;
    next_[static_cast<size_t>(last[static_cast<size_t>(head)])] = r;
    last[static_cast<size_t>(head)] = r;
  };
  // One int64 key: index the values as they are, so that probes need not encode theirs.
  int_keys_ = nullptr;
  if (keys.size() == 1 && keys[0].type().id() == TypeId::Int64) {
    const Column& c = keys[0];
    const int64_t* v = n > 0 ? c.values<int64_t>() : nullptr;
    for (int64_t r = 0; r < n; ++r) {
      if (c.is_null(r)) continue;  // a null key never matches
      const int64_t key = v[r];
      chain(r, index_.find_or_insert(
                   hash_int(key), [&](int64_t o) { return v[o] == key; }, r));
    }
    int_keys_ = v;
    keys_ = EncodedKeys();
  } else {
    encode_keys(keys, n, keys_);
    for (int64_t r = 0; r < n; ++r) {
      if (keys_.any_null[static_cast<size_t>(r)]) continue;  // a null key never matches
      std::string_view key = keys_.row(r);
      chain(r, index_.find_or_insert(
                   hash_key(key), [&](int64_t o) { return keys_.row(o) == key; }, r));
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
