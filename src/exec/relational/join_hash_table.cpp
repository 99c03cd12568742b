// Building the join index: the first row of each key in the index, the others chained behind
// it in build order.
#include "exec/relational/join_hash_table.h"

#include <algorithm>
#include <cstdint>

#include "exec/relational/column_gather.h"

namespace ember {

void JoinHashTable::build(Batch rows) {
  rows_ = std::move(rows);
  const int64_t n = rows_.num_rows();
  std::vector<Column> keys;
  for (int k : key_indices_) keys.push_back(rows_.column(k));
  index_ = KeyIndex();
  direct_.clear();
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
    build_direct(c, v, n);
  } else {
    encode_keys(keys, n, keys_);
    for (int64_t r = 0; r < n; ++r) {
      if (keys_.any_null[static_cast<size_t>(r)]) continue;  // a null key never matches
      std::string_view key = keys_.row(r);
      chain(r, index_.find_or_insert(
                   hash_key(key), [&](int64_t o) { return same_key(keys_.row(o), key); }, r));
    }
  }
  matched_ = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) matched_[static_cast<size_t>(r)].store(0);
}

void JoinHashTable::build_direct(const Column& keys, const int64_t* v, int64_t n) {
  if (n == 0 || n > INT32_MAX) return;
  bool any = false;
  int64_t lo = 0, hi = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (keys.is_null(r)) continue;
    lo = any ? std::min(lo, v[r]) : v[r];
    hi = any ? std::max(hi, v[r]) : v[r];
    any = true;
  }
  // 4 bytes per key of the range against the index's 16 bytes per slot, 2 or more slots per
  // row: a range under 4 rows per row costs no more memory than the index; a sparser range
  // keeps the index alone.
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (!any || span >= static_cast<uint64_t>(4 * n + 1024)) return;
  direct_.assign(span + 1, -1);
  direct_min_ = lo;
  for (int64_t r = 0; r < n; ++r) {  // the first row of each key: its chain's head
    if (keys.is_null(r)) continue;
    int32_t& head = direct_[static_cast<uint64_t>(v[r]) - static_cast<uint64_t>(lo)];
    if (head < 0) head = static_cast<int32_t>(r);
  }
}

void JoinHashTable::int_heads(const Column& keys, std::vector<int64_t>& heads) const {
  const int64_t n = keys.size();
  heads.resize(static_cast<size_t>(n));
  const int64_t* v = n > 0 ? keys.values<int64_t>() : nullptr;
  if (!direct_.empty()) {  // a loop of loads the compiler can keep in registers and unroll
    const int32_t* direct = direct_.data();
    const uint64_t size = direct_.size();
    const auto lo = static_cast<uint64_t>(direct_min_);
    int64_t* out = heads.data();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t at = static_cast<uint64_t>(v[i]) - lo;
      out[i] = at < size ? direct[at] : -1;
    }
  } else {
    // Random keys wait on memory: start loading the slot of a probe some rows ahead.
    constexpr int64_t kAhead = 16;
    for (int64_t i = 0; i < n; ++i) {
      if (i + kAhead < n) index_.prefetch(hash_int(v[i + kAhead]));
      heads[static_cast<size_t>(i)] = int_head(v[i]);
    }
  }
  if (keys.null_count() > 0)  // a null key never matches
    for (int64_t i = 0; i < n; ++i)
      if (keys.is_null(i)) heads[static_cast<size_t>(i)] = -1;
}

std::vector<int64_t> JoinHashTable::unmatched_rows() const {
  std::vector<int64_t> out;
  for (int64_t r = 0; r < rows_.num_rows(); ++r)
    if (!matched_[static_cast<size_t>(r)].load(std::memory_order_relaxed)) out.push_back(r);
  return out;
}

Batch unmatched_build_rows(const JoinHashTable& table, const JoinLayout& layout) {
  const std::vector<int64_t> rows = table.unmatched_rows();
  const Batch& build = table.rows();
  std::vector<Column> out;
  for (int c = 0; c < layout.left_columns; ++c) {
    const Field& f = layout.output.field(c);
    Column col = Column::nulls(f.type, static_cast<int64_t>(rows.size()));
    for (size_t k = 0; k < layout.left_keys.size(); ++k)
      if (layout.left_keys[k] == c) col = gather(build.column(layout.right_keys[k]), rows);
    out.push_back(std::move(col));
  }
  for (int c : layout.right_columns) out.push_back(gather(build.column(c), rows));
  return Batch(layout.output, std::move(out));
}

}  // namespace ember
