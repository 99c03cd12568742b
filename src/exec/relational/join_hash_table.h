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
    const int64_t head = index_.find(hash_key(key), [&](int64_t r) { return keys_.row(r) == key; });
    for (int64_t r = head; r >= 0; r = next_[static_cast<size_t>(r)]) f(r);
  }
  /// True when the key is one int64 column: probes may then use for_each_int_match.
  bool int_keyed() const { return int_keys_ != nullptr; }
  /// for_each_match for the int64 key `key`, without encoding it. hash_int is a bijection, so
  /// equal hashes are equal keys: the build row's key need not be loaded to confirm a match,
  /// and when every build key is unique there is no chain to follow either (one memory access
  /// per probe, not three).
  template <class F>
  void for_each_int_match(int64_t key, F&& f) const {
    const int64_t head = index_.find(hash_int(key), [](int64_t) { return true; });
    if (unique_keys_) {
      if (head >= 0) f(head);
      return;
    }
    for (int64_t r = head; r >= 0; r = next_[static_cast<size_t>(r)]) f(r);
  }
  /// Starts loading the index slot of the int64 key `key` (see KeyIndex::prefetch).
  void prefetch_int(int64_t key) const { index_.prefetch(hash_int(key)); }
  /// Records that build row `row` matched (any thread).
  void mark_matched(int64_t row) const {
    matched_[static_cast<size_t>(row)].store(1, std::memory_order_relaxed);
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
};

}  // namespace ember
