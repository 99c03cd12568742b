// sorted_rows' fast path (fixed-width keys without nulls sorted as order-preserving words)
// against the general comparison: the same permutation for every mix of types and directions,
// NaN, infinities, -0.0 and ties included.
#include "exec/relational/row_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace ember;

namespace {

/// The order compare_rows defines, as a stable sort: what every path must give.
std::vector<int64_t> reference(const std::vector<Column>& keys,
                               const std::vector<KeyOrder>& order) {
  std::vector<int64_t> idx(static_cast<size_t>(keys[0].size()));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t x, int64_t y) { return compare_rows(keys, x, keys, y, order) < 0; });
  return idx;
}

Column key_column(int kind, int64_t n, std::mt19937_64& rng) {
  const double specials[] = {std::nan(""),
                             -0.0,
                             0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             -1.5,
                             2.25};
  switch (kind) {
    case 0: {  // int64 with few values (ties) and extremes
      std::vector<int64_t> v;
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng() % 9;
        v.push_back(r == 0   ? std::numeric_limits<int64_t>::min()
                    : r == 1 ? std::numeric_limits<int64_t>::max()
                             : static_cast<int64_t>(r) - 4);
      }
      return Column::from(std::move(v));
    }
    case 1: {  // float64 with NaN, infinities and both zeros
      std::vector<double> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(specials[rng() % 7]);
      return Column::from(std::move(v));
    }
    case 2: {  // float32
      std::vector<std::optional<float>> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(specials[rng() % 7]));
      return Column::from(std::move(v));
    }
    case 3: {  // int32
      std::vector<std::optional<int32_t>> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<int32_t>(rng() % 7) - 3);
      return Column::from(std::move(v));
    }
    default: {  // bool
      std::vector<bool> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(rng() % 2 == 0);
      return Column::from(std::move(v));
    }
  }
}

}  // namespace

TEST(RowOrder, WordSortGivesTheComparisonsPermutation) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 60; ++trial) {
    const size_t nkeys = 1 + static_cast<size_t>(trial % 3);
    std::vector<Column> keys;
    std::vector<KeyOrder> order;
    for (size_t k = 0; k < nkeys; ++k) {
      keys.push_back(key_column(static_cast<int>(rng() % 5), 500, rng));
      order.push_back(KeyOrder{rng() % 2 == 0, false});
    }
    ASSERT_EQ(keys[0].null_count(), 0);
    EXPECT_EQ(sorted_rows(keys, 500, order), reference(keys, order)) << "trial " << trial;
  }
}

TEST(RowOrder, KeysWithNullsKeepTheGeneralPath) {
  std::vector<std::optional<double>> v = {1.0, std::nullopt, -0.0, std::nan(""), 0.0, std::nullopt};
  const std::vector<Column> keys = {Column::from(v)};
  for (const bool desc : {false, true})
    for (const bool nulls_first : {false, true}) {
      const std::vector<KeyOrder> order = {KeyOrder{desc, nulls_first}};
      EXPECT_EQ(sorted_rows(keys, 6, order), reference(keys, order));
    }
}
