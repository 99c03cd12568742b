// Key ranges for a write spread by key range: splitters at quantiles of a sorted share, cuts that
// keep equal keys together and cover every row once, and the merge of one range's pieces.
#include "exec/relational/key_ranges.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

using namespace ember;

namespace {

/// Rows (k, v) with k ascending (nulls last, as KeyOrder{} puts them).
Batch sorted_rows(const std::vector<std::optional<int64_t>>& keys) {
  std::vector<int64_t> values;
  for (size_t i = 0; i < keys.size(); ++i) values.push_back(static_cast<int64_t>(i) * 10);
  Schema schema({Field{"k", int64()}, Field{"v", int64()}});
  return Batch(schema, {Column::from(keys), Column::from(values)});
}

std::vector<std::optional<int64_t>> keys_of(const Batch& b) {
  std::vector<std::optional<int64_t>> out;
  for (int64_t i = 0; i < b.num_rows(); ++i)
    out.push_back(b.column(0).is_null(i) ? std::nullopt
                                         : std::optional(b.column(0).value<int64_t>(i)));
  return out;
}

const std::vector<KeyOrder> kAscending{KeyOrder{}};

}  // namespace

TEST(KeyRanges, SplittersCutASortedShareIntoRangesOfNearEqualRows) {
  std::vector<std::optional<int64_t>> keys;
  for (int64_t k = 0; k < 90; ++k) keys.push_back(k);
  const Batch share = sorted_rows(keys);
  const Batch splitters = range_splitters(share, 1, kAscending, 3);
  ASSERT_EQ(splitters.num_columns(), 1);  // the keys only
  EXPECT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{29, 59}));
  const std::vector<Batch> parts = split_at_splitters(share, 1, kAscending, splitters, 3);
  ASSERT_EQ(parts.size(), 3u);
  for (const Batch& p : parts) EXPECT_EQ(p.num_rows(), 30);
  EXPECT_EQ(parts[1].column(0).value<int64_t>(0), 30);
  EXPECT_EQ(parts[2].column(1).value<int64_t>(29), 890);  // whole rows travel
}

TEST(KeyRanges, AnotherSharesRowsFallIntoTheRangesOfItsKeys) {
  // Splitters from one share cut another (every rank cuts its own share at rank 0's keys):
  // keys between, below and above them, and nulls (after every number) in the last range.
  const Batch splitters = range_splitters(sorted_rows({10, 20, 30, 40, 50, 60}), 1, kAscending, 3);
  ASSERT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{20, 40}));
  const Batch other = sorted_rows({-5, 20, 21, 39, 40, 41, 99, std::nullopt});
  const std::vector<Batch> parts = split_at_splitters(other, 1, kAscending, splitters, 3);
  EXPECT_EQ(keys_of(parts[0]), (std::vector<std::optional<int64_t>>{-5, 20}));
  EXPECT_EQ(keys_of(parts[1]), (std::vector<std::optional<int64_t>>{21, 39, 40}));
  EXPECT_EQ(keys_of(parts[2]), (std::vector<std::optional<int64_t>>{41, 99, std::nullopt}));
}

TEST(KeyRanges, EqualKeysStayInOneRangeAndFewRowsGiveFewerSplitters) {
  // Ties: a splitter repeated adds nothing, and every row of one key lands in one range.
  const Batch ties = sorted_rows({1, 1, 1, 1, 1, 1, 2, 2, 2});
  const Batch splitters = range_splitters(ties, 1, kAscending, 3);
  EXPECT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{1}));
  const std::vector<Batch> parts = split_at_splitters(ties, 1, kAscending, splitters, 3);
  EXPECT_EQ(parts[0].num_rows(), 6);
  EXPECT_EQ(parts[1].num_rows(), 3);
  EXPECT_EQ(parts[2].num_rows(), 0);
  // One row on four ranks, and none: no splitter, every row in the first range.
  EXPECT_EQ(range_splitters(sorted_rows({7}), 1, kAscending, 4).num_rows(), 0);
  const Batch none = range_splitters(sorted_rows({}), 1, kAscending, 4);
  EXPECT_EQ(none.num_rows(), 0);
  const std::vector<Batch> first = split_at_splitters(sorted_rows({5, 6}), 1, kAscending, none, 4);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].num_rows(), 2);
  EXPECT_EQ(first[1].num_rows() + first[2].num_rows() + first[3].num_rows(), 0);
}

TEST(KeyRanges, ARangesPiecesMergeIntoKeyOrder) {
  const Batch a = sorted_rows({1, 4, 9});
  const Batch b = sorted_rows({2, 3, std::nullopt});
  const Batch c = sorted_rows({});
  auto merged = merge_key_ordered(a.schema(), 1, kAscending, {a, b, c}, "GroupBy");
  const Batch all = read_whole(*merged);
  EXPECT_EQ(keys_of(all), (std::vector<std::optional<int64_t>>{1, 2, 3, 4, 9, std::nullopt}));
  // No rows at all: a batch of the schema, with no rows.
  const Batch nothing = read_whole(*merge_key_ordered(a.schema(), 1, kAscending, {c}, "GroupBy"));
  EXPECT_EQ(nothing.num_rows(), 0);
  EXPECT_EQ(nothing.num_columns(), 2);
}
