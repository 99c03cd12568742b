// Group lookup and insertion; aggregates grow with the groups.
#include "exec/relational/group_table.h"

#include <algorithm>
#include <cstring>

namespace ember {

GroupTable::GroupTable(std::vector<GroupedAggregate> aggregates)
    : aggregates_(std::move(aggregates)) {}

uint32_t GroupTable::group_of(std::string_view key, uint64_t hash) {
  const auto next = static_cast<int64_t>(size());
  const int64_t g = index_.find_or_insert(
      hash, [&](int64_t other) { return same_key(this->key(static_cast<size_t>(other)), key); },
      next);
  if (g == next) {
    arena_.append(key);
    const auto width = static_cast<int64_t>(key.size());
    if (key_width_ != width) key_width_ = key_width_ < 0 ? width : 0;
    key_start_.push_back(static_cast<int64_t>(arena_.size()));
    hashes_.push_back(hash);
  }
  return static_cast<uint32_t>(g);
}

template <size_t W>
uint32_t GroupTable::fixed_group_of(const char* key, size_t w, uint64_t hash, bool uniform) {
  const auto next = static_cast<int64_t>(size());
  const int64_t g = index_.find_or_insert(
      hash,
      [&](int64_t o) {
        const auto at = static_cast<size_t>(o);
        if (uniform) return std::memcmp(arena_.data() + at * w, key, w) == 0;
        return key_start_[at + 1] - key_start_[at] == static_cast<int64_t>(w) &&
               std::memcmp(arena_.data() + key_start_[at], key, w) == 0;
      },
      next);
  if (g == next) {
    arena_.append(key, w);
    key_start_.push_back(static_cast<int64_t>(arena_.size()));
    hashes_.push_back(hash);
  }
  return static_cast<uint32_t>(g);
}

// Fixed-width keys: the width a constant where it is a common one (one or two 8-byte keys), so
// that hashing and comparing a key are a few word loads, inlined, with no length to test.
template <size_t W>
void GroupTable::find_fixed_groups(const EncodedKeys& keys) {
  const size_t w = W > 0 ? W : static_cast<size_t>(keys.width);
  const auto rows = static_cast<size_t>(keys.rows());
  const char* p = keys.bytes.data();
  if (key_width_ != static_cast<int64_t>(w))
    key_width_ = key_width_ < 0 ? static_cast<int64_t>(w) : 0;
  // Every key w bytes (as in every group-by, whose keys have one type list): one load fewer
  // per row than through key_start_.
  const bool uniform = key_width_ == static_cast<int64_t>(w);
  batch_hashes_.resize(rows);
  for (size_t i = 0; i < rows; ++i) batch_hashes_[i] = hash_key(std::string_view(p + i * w, w));
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < rows; ++i) {
    if (i + kAhead < rows) index_.prefetch(batch_hashes_[i + kAhead]);
    scratch_[i] = fixed_group_of<W>(p + i * w, w, batch_hashes_[i], uniform);
  }
}

bool GroupTable::find_direct_groups(const EncodedKeys& keys) {
  constexpr size_t w = 9;
  constexpr char kValid = 1;               // the encoding's "valid" byte
  constexpr uint64_t kMaxSpan = 1u << 16;  // 256 KB of group numbers at most
  const auto rows = static_cast<size_t>(keys.rows());
  const char* p = keys.bytes.data();
  auto number = [&](size_t i) {
    uint64_t x;
    std::memcpy(&x, p + i * w + 1, 8);
    return x;
  };
  if (!direct_tried_) {  // the first batch decides, from its range
    direct_tried_ = true;
    bool any = false;
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < rows; ++i) {
      if (p[i * w] != kValid) continue;
      const auto x = static_cast<int64_t>(number(i));
      lo = any ? std::min(lo, x) : x;
      hi = any ? std::max(hi, x) : x;
      any = true;
    }
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (!any || span >= kMaxSpan) return false;
    // Room for later batches' numbers a little past the first's.
    direct_.assign(std::min<uint64_t>(kMaxSpan, 2 * span + 64), kNoGroup);
    direct_lo_ = static_cast<uint64_t>(lo);
  }
  if (direct_.empty()) return false;
  if (key_width_ != static_cast<int64_t>(w))
    key_width_ = key_width_ < 0 ? static_cast<int64_t>(w) : 0;
  const bool uniform = key_width_ == static_cast<int64_t>(w);
  uint32_t* direct = direct_.data();
  const uint64_t size = direct_.size();
  for (size_t i = 0; i < rows; ++i) {
    const char* key = p + i * w;
    const uint64_t at = number(i) - direct_lo_;
    const bool in_window = key[0] == kValid && at < size;
    if (in_window && direct[at] != kNoGroup) {
      scratch_[i] = direct[at];
      continue;
    }
    // Null, outside the window, or not seen yet: the hash table, which owns the groups.
    const uint32_t g = fixed_group_of<w>(key, w, hash_key(std::string_view(key, w)), uniform);
    if (in_window) direct[at] = g;
    scratch_[i] = g;
  }
  return true;
}

// Column-at-a-time over the batch: all hashes first (a loop without lookups in it), then the
// lookups, each starting the load of a slot a few rows ahead; then each aggregate's loop over
// the group numbers.
void GroupTable::add(const EncodedKeys& keys, const std::vector<Column>& inputs) {
  if (!indexed_) throw Error("internal: rows added to a decoded group table");
  const auto rows = static_cast<size_t>(keys.rows());
  scratch_.resize(rows);
  if (keys.width == 9) {
    if (!find_direct_groups(keys)) find_fixed_groups<9>(keys);
  } else if (keys.width == 18) {
    find_fixed_groups<18>(keys);
  } else if (keys.width > 0) {
    find_fixed_groups<0>(keys);
  } else {
    batch_hashes_.resize(rows);
    for (size_t i = 0; i < rows; ++i)
      batch_hashes_[i] = hash_key(keys.row(static_cast<int64_t>(i)));
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < rows; ++i) {
      if (i + kAhead < rows) index_.prefetch(batch_hashes_[i + kAhead]);
      scratch_[i] = group_of(keys.row(static_cast<int64_t>(i)), batch_hashes_[i]);
    }
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    aggregates_[a].resize(size());
    aggregates_[a].update(inputs[a], scratch_);
  }
}

void GroupTable::ensure_empty_key() {
  if (!indexed_) throw Error("internal: a group added to a decoded group table");
  group_of(std::string_view(), hash_key({}));
  for (auto& a : aggregates_) a.resize(size());
}

}  // namespace ember
