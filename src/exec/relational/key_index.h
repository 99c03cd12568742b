// A flat hash index from encoded keys to numbers (a group, a first build row): open addressing
// with linear probing over (hash, value) slots, so a lookup touches one cache line in the
// common case instead of a bucket, a node and a string.
#pragma once

#include <cstdint>
#include <vector>

namespace ember {

/// Maps keys to non-negative values. The keys themselves live with the caller: lookups take
/// the key's hash and `same(value)`, which says whether the key stored under `value` is the
/// one looked for. Not thread-safe for writes; concurrent find() calls are safe.
class KeyIndex {
 public:
  KeyIndex() { rehash(16); }

  /// The value stored for the key, or -1.
  template <class Same>
  int64_t find(uint64_t hash, Same same) const {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value < 0) return -1;
      if (s.hash == hash && same(s.value)) return s.value;
    }
  }
  /// Starts loading the slot a lookup of `hash` begins at, so that a probe issued a few rows
  /// later finds it in cache instead of waiting on memory.
  void prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }
  /// The value stored for the key; stores `value` first when there is none.
  template <class Same>
  int64_t find_or_insert(uint64_t hash, Same same, int64_t value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value < 0) {
        s = {hash, value};
        ++size_;
        return value;
      }
      if (s.hash == hash && same(s.value)) return s.value;
    }
  }
  /// Makes room for `n` keys without growing.
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    int64_t value = -1;  ///< -1: empty
  };

  void rehash(size_t capacity) {
    std::vector<Slot> slots(capacity);
    const size_t mask = capacity - 1;
    for (const Slot& s : slots_) {
      if (s.value < 0) continue;
      size_t j = s.hash & mask;
      while (slots[j].value >= 0) j = (j + 1) & mask;
      slots[j] = s;
    }
    slots_ = std::move(slots);
    mask_ = mask;
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace ember
