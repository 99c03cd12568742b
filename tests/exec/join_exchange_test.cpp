// A join as a hash exchange of both sides: each side's rows split by key hash into shares, each
// share adopted by its rank's copy of the exchange (ShuffleSink), and each rank's buckets joined
// there (BucketJoinSource). Every row lands in exactly one bucket, a key's rows of both sides
// meet in the same one, and the ranks' joins together give what one machine's join gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "exec/relational/spill_file.h"
#include "exec/sinks/shuffle_sink.h"
#include "exec/sources/bucket_join_source.h"
#include "exec_test_kit.h"

namespace ember {
namespace {

const Schema kLeft({{"k", int64()}, {"a", utf8()}});
const Schema kRight({{"k", int64()}, {"b", int64()}});
const Schema kJoined({{"k", int64()}, {"a", utf8()}, {"b", int64()}});

/// Partition p of a side: keys with nulls and repeats (`salt` tells the sides apart).
Batch side_rows(const Schema& schema, int p, int salt) {
  ColumnBuilder k(int64(), 0), v(schema.field(1).type, 0);
  for (int i = 0; i < 300; ++i) {
    const int row = p * 1000 + i;
    k.append_value(row % (17 + salt) == 0 ? Value{} : Value{int64_t{(row * (salt + 1)) % 97}});
    if (schema.field(1).type == utf8())
      v.append_value(Value{"a" + std::to_string(row)});
    else
      v.append_value(Value{int64_t{row}});
  }
  return Batch(schema, {k.finish(), v.finish()});
}

/// Every batch of a source's partitions.
std::vector<Batch> read(const Source& source) {
  std::vector<Batch> out;
  for (int p = 0; p < source.num_partitions(); ++p) {
    auto reader = source.open(p, 128);
    while (auto b = reader->next()) out.push_back(*b);
  }
  return out;
}

/// Every rank's buckets of one side: `partitions` partitions, each run into the copy of the
/// exchange of rank p % ranks and split there into shares, share q adopted by rank q's copy.
std::vector<std::shared_ptr<JoinBuckets>> exchange(const Schema& schema, int salt, int partitions,
                                                   int ranks, int per_rank, int64_t budget = 0) {
  std::vector<std::shared_ptr<JoinBuckets>> kept;
  std::vector<std::unique_ptr<ShuffleSink>> sinks;
  std::vector<std::unique_ptr<GlobalSinkState>> states;
  for (int r = 0; r < ranks; ++r) {
    kept.push_back(std::make_shared<JoinBuckets>());
    sinks.push_back(std::make_unique<ShuffleSink>(std::vector<int>{0}, schema, per_rank, kept[r]));
    states.push_back(sinks[r]->global_state(partitions));
    states.back()->memory_budget_bytes = budget;
  }
  for (int p = 0; p < partitions; ++p) {
    const ShuffleSink& runs = *sinks[p % ranks];
    auto local = runs.local_state(*states[p % ranks], p);
    runs.sink(*states[p % ranks], *local, side_rows(schema, p, salt));
    const auto shares = runs.encode_partial_shares(*states[p % ranks], *local, ranks);
    EXPECT_EQ(static_cast<int>(shares.size()), ranks);
    for (int q = 0; q < ranks; ++q) {
      auto adopted = sinks[q]->local_state(*states[q], p);
      sinks[q]->adopt_partial(*states[q], *adopted, shares[q].bytes);
      sinks[q]->combine(*states[q], *adopted);
    }
  }
  for (int r = 0; r < ranks; ++r) sinks[r]->finalize_shares(*states[r], {});
  return kept;
}

/// Rows as sorted strings: a multiset.
std::vector<std::string> rows_of(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const Batch& b : batches)
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      std::string row;
      for (int c = 0; c < b.num_columns(); ++c) row += to_string(b.column(c).get(i)) + "|";
      rows.push_back(row);
    }
  std::sort(rows.begin(), rows.end());
  return rows;
}

class JoinExchangeBudgets : public ::testing::TestWithParam<int64_t> {};

TEST_P(JoinExchangeBudgets, EveryRowLandsInOneBucketAndEachKeyInOneOnly) {
  constexpr int kRanks = 3, kPerRank = 2, kPartitions = 5;
  const int64_t files = SpillFile::files_created();
  const auto kept = exchange(kLeft, 0, kPartitions, kRanks, kPerRank, GetParam());
  // Past half the budget a rank's buckets go to disk: rows come back from there too.
  EXPECT_EQ(SpillFile::files_created() > files, GetParam() > 0);
  std::map<std::string, std::set<std::pair<int, int>>> where;  // key -> (rank, bucket)
  std::vector<Batch> all;
  for (int r = 0; r < kRanks; ++r)
    for (int k = 0; k < kPerRank; ++k)
      for (const Batch& b : read(*kept[r]->bucket(k, kLeft))) {
        all.push_back(b);
        for (int64_t i = 0; i < b.num_rows(); ++i)
          where[to_string(b.column(0).get(i))].insert({r, k});
      }
  std::vector<Batch> input;
  for (int p = 0; p < kPartitions; ++p) input.push_back(side_rows(kLeft, p, 0));
  EXPECT_EQ(rows_of(all), rows_of(input));  // nothing lost, nothing doubled
  EXPECT_GT(where.size(), 90u);
  std::set<std::pair<int, int>> used;
  for (const auto& [key, buckets] : where) {
    EXPECT_EQ(buckets.size(), 1u) << "key " << key;
    used.insert(buckets.begin(), buckets.end());
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(kRanks * kPerRank));  // every bucket gets keys
}

// No budget (all in memory), and one a partition's share passes (the rest on disk).
INSTANTIATE_TEST_SUITE_P(InMemoryAndSpilled, JoinExchangeBudgets, ::testing::Values(0, 4096));

TEST(JoinExchange, AShareCutShortIsAnError) {
  auto kept = std::make_shared<JoinBuckets>();
  const ShuffleSink sink({0}, kLeft, 2, kept);
  auto state = sink.global_state(1);
  auto local = sink.local_state(*state, 0);
  sink.sink(*state, *local, side_rows(kLeft, 0, 0));
  const auto shares = sink.encode_partial_shares(*state, *local, 2);
  auto adopted = sink.local_state(*state, 0);
  const std::string cut = shares[0].bytes.substr(0, shares[0].bytes.size() / 2);
  EXPECT_THROW(sink.adopt_partial(*state, *adopted, cut), Error);
}

class JoinExchangeTypes : public ::testing::TestWithParam<JoinType> {};

TEST_P(JoinExchangeTypes, TheRanksJoinsTogetherEqualOneMachinesJoin) {
  constexpr int kRanks = 3, kPerRank = 2;
  JoinShape shape;
  shape.on = {"k"};
  shape.type = GetParam();
  shape.left = kLeft;
  shape.right = kRight;
  const bool right_columns = shape.type != JoinType::Semi && shape.type != JoinType::Anti;
  shape.output = kLeft;
  if (right_columns) {
    shape.right_columns["b"] = "b";
    shape.output = kJoined;
  }
  // One machine: every row in one bucket of one rank.
  const BucketJoinSource whole(shape, exchange(kLeft, 0, 4, 1, 1)[0],
                               exchange(kRight, 1, 3, 1, 1)[0], 1, 0, 1, 0);
  std::vector<Batch> expected;
  auto reader = whole.open(0, 1 << 20);
  while (auto b = reader->next()) expected.push_back(*b);
  ASSERT_FALSE(expected.empty());

  // The left side's buckets past a small budget: partly on disk.
  const auto left = exchange(kLeft, 0, 4, kRanks, kPerRank, 8192);
  const auto right = exchange(kRight, 1, 3, kRanks, kPerRank);
  // Each bucket's join as it is, and with a build past a tiny budget (spilled, joined later).
  for (const int64_t budget : {int64_t{0}, int64_t{2048}}) {
    std::vector<Batch> joined;
    for (int r = 0; r < kRanks; ++r) {
      const BucketJoinSource mine(shape, left[r], right[r], kRanks, r, kPerRank, budget);
      ASSERT_EQ(mine.num_partitions(), kRanks * kPerRank);
      for (int p = 0; p < mine.num_partitions(); ++p) {
        EXPECT_EQ(mine.home_rank(p), p % kRanks);
        if (mine.home_rank(p) != r) {
          EXPECT_THROW(mine.open(p, 100), Error);  // another rank's bucket: never read as empty
          continue;
        }
        auto rows = mine.open(p, 100);
        while (auto b = rows->next()) {
          EXPECT_LE(b->num_rows(), 100);
          joined.push_back(*b);
        }
      }
    }
    EXPECT_EQ(rows_of(joined), rows_of(expected)) << "budget " << budget;
  }
}

/// A bucket's join streams: a reader closed after its first batch stops the join (which had
/// far more to give) instead of waiting for it.
TEST(JoinExchange, ABucketsJoinStreamsAndStopsWhenItsReaderCloses) {
  JoinShape shape;
  shape.on = {"k"};
  shape.left = kLeft;
  shape.right = kRight;
  shape.right_columns["b"] = "b";
  shape.output = kJoined;
  const auto left = exchange(kLeft, 0, 40, 1, 1);
  const auto right = exchange(kRight, 1, 40, 1, 1);
  const BucketJoinSource bucket(shape, left[0], right[0], 1, 0, 1, 0);
  int64_t all = 0;
  {
    auto reader = bucket.open(0, 64);
    while (auto b = reader->next()) all += b->num_rows();
  }
  ASSERT_GT(all, 64 * 100);
  for (int taken = 0; taken < 3; ++taken) {
    auto reader = bucket.open(0, 64);
    for (int i = 0; i < taken; ++i) {
      const std::optional<Batch> b = reader->next();
      ASSERT_TRUE(b.has_value());
      EXPECT_EQ(b->num_rows(), 64);
    }
  }  // each reader closed early: its join ends with it
}

INSTANTIATE_TEST_SUITE_P(EveryType, JoinExchangeTypes,
                         ::testing::Values(JoinType::Inner, JoinType::Left, JoinType::Right,
                                           JoinType::Full, JoinType::Semi, JoinType::Anti));

}  // namespace
}  // namespace ember
