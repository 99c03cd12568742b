// Key ranges for a write spread by key range: splitters at quantiles of sorted runs (sampled
// when long), cuts that keep equal keys together and cover every row once, and the merge of one
// range's pieces, ties to the lower tag.
#include "exec/relational/key_ranges.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

using namespace ember;

namespace {

/// Rows (k, v) with k ascending (nulls last, as KeyOrder{} puts them), v = 10 * row + `base`.
Batch sorted_rows(const std::vector<std::optional<int64_t>>& keys, int64_t base = 0) {
  std::vector<int64_t> values;
  for (size_t i = 0; i < keys.size(); ++i) values.push_back(static_cast<int64_t>(i) * 10 + base);
  Schema schema({Field{"k", int64()}, Field{"v", int64()}});
  return Batch(schema, {Column::from(keys), Column::from(values)});
}

std::vector<std::optional<int64_t>> keys_of(const Batch& b, int column = 0) {
  std::vector<std::optional<int64_t>> out;
  for (int64_t i = 0; i < b.num_rows(); ++i)
    out.push_back(b.column(column).is_null(i) ? std::nullopt
                                              : std::optional(b.column(column).value<int64_t>(i)));
  return out;
}

const RangeKeys kByK{{0}, {KeyOrder{}}};
const Schema kSchema({Field{"k", int64()}, Field{"v", int64()}});

Batch splitters_of(const Batch& rows, int parts) {
  return range_splitters({TaggedRun{0, rows}}, kSchema, kByK, parts);
}

}  // namespace

TEST(KeyRanges, SplittersCutASortedShareIntoRangesOfNearEqualRows) {
  std::vector<std::optional<int64_t>> keys;
  for (int64_t k = 0; k < 90; ++k) keys.push_back(k);
  const Batch share = sorted_rows(keys);
  const Batch splitters = splitters_of(share, 3);
  ASSERT_EQ(splitters.num_columns(), 1);  // the keys only
  EXPECT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{29, 59}));
  const std::vector<Batch> parts = split_at_splitters(share, kByK, splitters, 3);
  ASSERT_EQ(parts.size(), 3u);
  for (const Batch& p : parts) EXPECT_EQ(p.num_rows(), 30);
  EXPECT_EQ(parts[1].column(0).value<int64_t>(0), 30);
  EXPECT_EQ(parts[2].column(1).value<int64_t>(29), 890);  // whole rows travel
}

TEST(KeyRanges, AnotherSharesRowsFallIntoTheRangesOfItsKeys) {
  // Splitters from one share cut another (every rank cuts its own share at rank 0's keys):
  // keys between, below and above them, and nulls (after every number) in the last range.
  const Batch splitters = splitters_of(sorted_rows({10, 20, 30, 40, 50, 60}), 3);
  ASSERT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{20, 40}));
  const Batch other = sorted_rows({-5, 20, 21, 39, 40, 41, 99, std::nullopt});
  const std::vector<Batch> parts = split_at_splitters(other, kByK, splitters, 3);
  EXPECT_EQ(keys_of(parts[0]), (std::vector<std::optional<int64_t>>{-5, 20}));
  EXPECT_EQ(keys_of(parts[1]), (std::vector<std::optional<int64_t>>{21, 39, 40}));
  EXPECT_EQ(keys_of(parts[2]), (std::vector<std::optional<int64_t>>{41, 99, std::nullopt}));
}

TEST(KeyRanges, EqualKeysStayInOneRangeAndFewRowsGiveFewerSplitters) {
  // Ties: a splitter repeated adds nothing, and every row of one key lands in one range.
  const Batch ties = sorted_rows({1, 1, 1, 1, 1, 1, 2, 2, 2});
  const Batch splitters = splitters_of(ties, 3);
  EXPECT_EQ(keys_of(splitters), (std::vector<std::optional<int64_t>>{1}));
  const std::vector<Batch> parts = split_at_splitters(ties, kByK, splitters, 3);
  EXPECT_EQ(parts[0].num_rows(), 6);
  EXPECT_EQ(parts[1].num_rows(), 3);
  EXPECT_EQ(parts[2].num_rows(), 0);
  // One row on four ranks, and none: no splitter, every row in the first range.
  EXPECT_EQ(splitters_of(sorted_rows({7}), 4).num_rows(), 0);
  const Batch none = range_splitters({}, kSchema, kByK, 4);
  EXPECT_EQ(none.num_rows(), 0);
  EXPECT_EQ(none.num_columns(), 1);  // the key's type, for the message that carries it
  const std::vector<Batch> first = split_at_splitters(sorted_rows({5, 6}), kByK, none, 4);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].num_rows(), 2);
  EXPECT_EQ(first[1].num_rows() + first[2].num_rows() + first[3].num_rows(), 0);
}

TEST(KeyRanges, LongRunsAreSampledAndStillGiveNearEqualRanges) {
  // Two runs of 100,000 rows, one over keys 0..99,999 and one over 0..199,998 (even keys): the
  // quantiles of their union, from a sample of each weighted by what it stands for.
  std::vector<std::optional<int64_t>> a, b;
  for (int64_t i = 0; i < 100000; ++i) {
    a.push_back(i);
    b.push_back(2 * i);
  }
  const std::vector<TaggedRun> runs{{0, sorted_rows(a)}, {1, sorted_rows(b)}};
  const Batch splitters = range_splitters(runs, kSchema, kByK, 4);
  ASSERT_EQ(splitters.num_rows(), 3);
  for (int r = 0; r < 4; ++r) {
    int64_t rows = 0;
    for (const TaggedRun& run : runs)
      rows += split_at_splitters(run.rows, kByK, splitters, 4)[static_cast<size_t>(r)].num_rows();
    EXPECT_NEAR(static_cast<double>(rows), 50000.0, 2000.0) << "range " << r;
  }
}

TEST(KeyRanges, ARangesPiecesMergeIntoKeyOrderTiesToTheLowerTag) {
  const Batch a = sorted_rows({1, 4, 9}, 1);
  const Batch b = sorted_rows({2, 4, std::nullopt}, 2);
  const Batch c = sorted_rows({});
  // Given out of tag order: b (tag 1) after a (tag 0) on the tie at key 4.
  auto merged = merge_key_ordered(kSchema, kByK, {{1, b}, {2, c}, {0, a}}, "KeyRange");
  const Batch all = read_whole(*merged);
  EXPECT_EQ(keys_of(all), (std::vector<std::optional<int64_t>>{1, 2, 4, 4, 9, std::nullopt}));
  EXPECT_EQ(all.column(1).value<int64_t>(2), 11);  // a's key 4 (row 1 of a: 10 + 1)
  EXPECT_EQ(all.column(1).value<int64_t>(3), 12);  // then b's
  // No rows at all: a batch of the schema, with no rows.
  const Batch nothing = read_whole(*merge_key_ordered(kSchema, kByK, {{0, c}}, "KeyRange"));
  EXPECT_EQ(nothing.num_rows(), 0);
  EXPECT_EQ(nothing.num_columns(), 2);
}
