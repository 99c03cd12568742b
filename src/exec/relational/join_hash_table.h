// The build side of a hash join, shared by the join's three physical parts: the build sink
// fills it once, the probe operator reads it from every pipeline thread, and (for right and
// full joins) the tail sink emits the build rows nothing matched.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ember/batch.h"
#include "exec/relational/join_layout.h"
#include "exec/relational/key_encoder.h"
#include "exec/relational/key_index.h"

namespace ember {

/// Build rows and an index from encoded key to rows. Written once by build() on the driver
/// thread before the probe pipeline starts; after that only match flags change (atomically),
/// so probes from many threads need no lock.
class JoinHashTable {
 public:
  /// `key_indices`: the key columns' positions in the build rows.
  explicit JoinHashTable(std::vector<int> key_indices) : key_indices_(std::move(key_indices)) {}

  /// Takes the build side's rows (in partition order) and indexes them; null keys are left out
  /// of the index (they never match). Replaces what an earlier run built.
  void build(Batch rows);
  const Batch& rows() const { return rows_; }

  /// Calls `f(row)` for each build row whose key equals `key`, in build order.
  template <class F>
  void for_each_match(std::string_view key, F&& f) const {
    const int64_t head =
        index_.find(hash_key(key), [&](int64_t r) { return same_key(keys_.row(r), key); });
    for (int64_t r = head; r >= 0; r = next_[static_cast<size_t>(r)]) f(r);
  }
  /// True when the key is one int64 column: probes may then use for_each_int_match.
  bool int_keyed() const { return int_keys_ != nullptr; }
  /// for_each_match for the int64 key `key`, without encoding it.
  template <class F>
  void for_each_int_match(int64_t key, F&& f) const {
    for (int64_t r = int_head(key); r >= 0; r = next_match(r)) f(r);
  }
  /// Each row's first matching build row (-1: none, or a null key) for the int64 probe keys
  /// `keys`, into `heads`: the whole batch's lookups in one loop, so that they overlap in
  /// memory instead of waiting one after the other. The rest of a row's matches: next_match.
  void int_heads(const Column& keys, std::vector<int64_t>& heads) const;
  /// True when no two build rows share a key: a probe row matches at most one.
  bool unique_keys() const { return unique_keys_; }
  /// The build row after `row` with the same key, in build order, or -1.
  int64_t next_match(int64_t row) const {
    return unique_keys_ ? -1 : next_[static_cast<size_t>(row)];
  }
  /// Records that build row `row` matched (any thread).
  void mark_matched(int64_t row) const {
    matched_[static_cast<size_t>(row)].store(1, std::memory_order_relaxed);
  }
  /// Whether build row `row` has matched so far (any thread).
  bool matched(int64_t row) const {
    return matched_[static_cast<size_t>(row)].load(std::memory_order_relaxed) != 0;
  }
  /// The build rows nothing matched, in build order. After the probe pipeline ended.
  std::vector<int64_t> unmatched_rows() const;

 private:
  std::vector<int> key_indices_;
  Batch rows_;
  EncodedKeys keys_;                   ///< row r's key: keys_.row(r)
  KeyIndex index_;                     ///< key -> its first row
  const int64_t* int_keys_ = nullptr;  ///< the key column's values when int_keyed() (in rows_)
  std::vector<int64_t> next_;          ///< row -> the next row with its key, or -1
  bool unique_keys_ = false;           ///< no two build rows share a key: next_ is all -1
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;
  /// When the int64 build keys span a range not much wider than the build side: the first row
  /// of key `direct_min_ + i` at direct_[i] (-1: none). A lookup is then one load from an
  /// array a quarter of the index's size, with no hash to compute or slot to compare.
  std::vector<int32_t> direct_;
  int64_t direct_min_ = 0;

  /// The first build row of the int64 key `key`, or -1.
  int64_t int_head(int64_t key) const {
    if (!direct_.empty()) {
      const uint64_t at = static_cast<uint64_t>(key) - static_cast<uint64_t>(direct_min_);
      return at < direct_.size() ? direct_[at] : -1;
    }
    // hash_int is a bijection, so equal hashes are equal keys: the build row's key need not
    // be loaded to confirm a match.
    return index_.find(hash_int(key), [](int64_t) { return true; });
  }
  /// Fills direct_ when the keys `v` of the n build rows allow it.
  void build_direct(const Column& keys, const int64_t* v, int64_t n);
};

/// The build rows of `table` that nothing matched, as join output: the left columns null
/// except the keys, which take the build row's values. After the probe ended.
Batch unmatched_build_rows(const JoinHashTable& table, const JoinLayout& layout);

}  // namespace ember
