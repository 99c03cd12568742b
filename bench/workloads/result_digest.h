// An order-independent fingerprint of a (key, value) result, compared across systems.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

/// Sums that any system can compute the same way over its output rows, in any order: the row
/// count and key sum (exact), the value sum and a key-weighted value sum (floating point, compared
/// with a tolerance), and an optional exact integer side sum (e.g. a projected column).
struct ResultDigest {
  int64_t rows = 0;
  int64_t key_sum = 0;
  int64_t aux_sum = 0;
  double value_sum = 0;
  double weighted_sum = 0;

  void add(int64_t key, double value, int64_t aux = 0) {
    ++rows;
    key_sum += key;
    aux_sum += aux;
    value_sum += value;
    // The weight depends on the key, so a value landing on the wrong row changes the digest.
    weighted_sum += value * static_cast<double>(key % 1000 + 1);
  }
  void merge(const ResultDigest& o) {
    rows += o.rows;
    key_sum += o.key_sum;
    aux_sum += o.aux_sum;
    value_sum += o.value_sum;
    weighted_sum += o.weighted_sum;
  }
  /// {"rows": .., "key_sum": .., "aux_sum": .., "value_sum": .., "weighted_sum": ..}
  std::string to_json() const;
};

}  // namespace bench
