// Group lookup and insertion; aggregates grow with the groups.
#include "exec/relational/group_table.h"

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
    const char* key = p + i * w;
    const auto next = static_cast<int64_t>(size());
    const int64_t g = index_.find_or_insert(
        batch_hashes_[i],
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
      hashes_.push_back(batch_hashes_[i]);
    }
    scratch_[i] = static_cast<uint32_t>(g);
  }
}

// Column-at-a-time over the batch: all hashes first (a loop without lookups in it), then the
// lookups, each starting the load of a slot a few rows ahead; then each aggregate's loop over
// the group numbers.
void GroupTable::add(const EncodedKeys& keys, const std::vector<Column>& inputs) {
  const auto rows = static_cast<size_t>(keys.rows());
  scratch_.resize(rows);
  if (keys.width == 9) {
    find_fixed_groups<9>(keys);
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
  group_of(std::string_view(), hash_key({}));
  for (auto& a : aggregates_) a.resize(size());
}

}  // namespace ember
