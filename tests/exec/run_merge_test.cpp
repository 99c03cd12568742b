// The streaming merge of sorted runs against the in-memory merge_runs: the same rows in the
// same order (ties to the earlier run, then row), whatever the chunking of the runs, the
// output batch size, and whether a chunk's keys compare as order words or as columns; the
// same for a sort's key ranges read partition by partition; and gathering from parts.
#include "exec/relational/run_merge.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "exec/relational/column_gather.h"
#include "exec/sources/sorted_ranges_source.h"

using namespace ember;

namespace {

Schema schema() {
  return Schema({{"k", int64()}, {"s", utf8()}, {"run", int64()}, {"row", int64()}});
}

/// A sorted run of `n` rows (key k ascending, nulls last; rows of one key in row order), its
/// keys beside it. With `nulls`, some keys are null, so that run compares by columns.
SortedRun make_run(int64_t run, int64_t n, bool nulls, std::mt19937_64& rng) {
  std::vector<std::optional<int64_t>> k;
  for (int64_t i = 0; i < n; ++i) k.push_back(static_cast<int64_t>(rng() % 50));
  std::sort(k.begin(), k.end());
  if (nulls)
    for (int64_t i = n - n / 5; i < n; ++i) k[static_cast<size_t>(i)] = std::nullopt;
  std::vector<std::string> s;
  std::vector<int64_t> runs, rows;
  for (int64_t i = 0; i < n; ++i) {
    s.push_back("r" + std::to_string(run) + "." + std::to_string(i));
    runs.push_back(run);
    rows.push_back(i);
  }
  SortedRun out;
  Column key = Column::from(k);
  out.rows = Batch(schema(), {key, Column::from(s), Column::from(runs), Column::from(rows)});
  out.keys = {key};
  return out;
}

/// A run handed out in chunks of the given sizes (a zero gives an empty chunk).
class Chunked final : public RunChunks {
 public:
  Chunked(SortedRun run, std::vector<int64_t> sizes)
      : run_(std::move(run)), sizes_(std::move(sizes)) {}
  std::optional<SortedRun> next() override {
    const int64_t n = run_.rows.num_rows();
    if (at_ >= n && (i_ >= sizes_.size() || sizes_[i_] != 0)) return std::nullopt;
    const int64_t size = i_ < sizes_.size() ? sizes_[i_] : n - at_;
    ++i_;
    const int64_t take = std::min(size, n - at_);
    SortedRun chunk;
    chunk.rows = run_.rows.slice(at_, take);
    chunk.keys = {run_.keys[0].slice(at_, take)};
    at_ += take;
    return chunk;
  }

 private:
  SortedRun run_;
  std::vector<int64_t> sizes_;
  size_t i_ = 0;
  int64_t at_ = 0;
};

void expect_same(const Batch& got, const Batch& want) {
  ASSERT_EQ(got.num_rows(), want.num_rows());
  for (int c = 0; c < want.num_columns(); ++c)
    for (int64_t r = 0; r < want.num_rows(); ++r)
      ASSERT_EQ(got.column(c).get(r), want.column(c).get(r)) << "column " << c << " row " << r;
}

}  // namespace

TEST(RunMerge, StreamsTheSameRowsInTheSameOrderAsTheInMemoryMerge) {
  const std::vector<KeyOrder> order = {KeyOrder{false, false}};
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<SortedRun> runs;
    std::vector<std::unique_ptr<RunChunks>> chunked;
    const int nruns = 1 + static_cast<int>(seed % 5);
    for (int r = 0; r < nruns; ++r) {
      // Empty runs, runs with nulls (compared by columns) and without (compared by words).
      const int64_t n = r == 1 ? 0 : static_cast<int64_t>(200 + rng() % 3000);
      runs.push_back(make_run(r, n, (r + static_cast<int>(seed)) % 3 == 0, rng));
      std::vector<int64_t> sizes;
      for (int64_t left = n; left > 0;) {
        const int64_t size = rng() % 4 == 0 ? 0 : static_cast<int64_t>(1 + rng() % 700);
        sizes.push_back(size);
        left -= size;
      }
      chunked.push_back(std::make_unique<Chunked>(runs.back(), sizes));
    }
    const Batch want = merge_runs(runs, schema(), order, -1);
    const int64_t batch_rows = std::vector<int64_t>{1, 7, 1000, 100000}[seed % 4];
    RunMergeReader reader(std::move(chunked), order, batch_rows);
    std::vector<Batch> got;
    while (std::optional<Batch> b = reader.next()) {
      ASSERT_GT(b->num_rows(), 0);
      ASSERT_LE(b->num_rows(), batch_rows);
      got.push_back(std::move(*b));
    }
    EXPECT_FALSE(reader.next());
    if (want.num_rows() == 0) {
      EXPECT_TRUE(got.empty());
      continue;
    }
    expect_same(Batch::concat(got), want);
  }
}

TEST(RunMerge, NoRunsOrOnlyEmptyOnesGiveNoBatch) {
  RunMergeReader none({}, {KeyOrder{}}, 10);
  EXPECT_FALSE(none.next());
  std::mt19937_64 rng(1);
  std::vector<std::unique_ptr<RunChunks>> runs;
  runs.push_back(std::make_unique<RunInMemory>(make_run(0, 0, false, rng)));
  runs.push_back(std::make_unique<Chunked>(make_run(1, 0, false, rng), std::vector<int64_t>{0, 0}));
  RunMergeReader empty(std::move(runs), {KeyOrder{}}, 10);
  EXPECT_FALSE(empty.next());
}

TEST(SortedRanges, PartitionsInOrderAreTheStableMergeOfTheRuns) {
  const std::vector<KeyOrder> order = {KeyOrder{false, false}};
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<SortedRun> runs;
    for (int r = 0; r < 1 + static_cast<int>(seed % 5); ++r) {
      // Keys 0..49 (null in some runs): ranges are cut among rows of equal keys.
      const int64_t n = r == 1 ? 0 : static_cast<int64_t>(200 + rng() % 3000);
      runs.push_back(make_run(r, n, (r + static_cast<int>(seed)) % 3 == 0, rng));
    }
    const Batch want = merge_runs(runs, schema(), order, -1);
    for (int parts : {1, 3, 16}) {
      SortedRangesSource source(schema(), runs, order, parts, "Sort");
      ASSERT_GE(source.num_partitions(), 1);
      ASSERT_LE(source.num_partitions(), parts);
      if (parts > 1 && want.num_rows() > 1000) {
        EXPECT_GT(source.num_partitions(), 1);
      }
      std::vector<Batch> got;
      for (int p = 0; p < source.num_partitions(); ++p) {
        auto reader = source.open(p, 500);
        while (std::optional<Batch> b = reader->next()) got.push_back(std::move(*b));
      }
      if (want.num_rows() == 0) {
        EXPECT_TRUE(got.empty());
        continue;
      }
      expect_same(Batch::concat(got), want);
    }
  }
}

TEST(SortedRanges, AllKeysEqualKeepRunThenRowOrder) {
  std::mt19937_64 rng(3);
  std::vector<SortedRun> runs;
  for (int r = 0; r < 4; ++r) {
    SortedRun run = make_run(r, 1000, false, rng);
    run.keys = {Column::from(std::vector<int64_t>(1000, 5))};
    runs.push_back(std::move(run));
  }
  SortedRangesSource source(schema(), runs, {KeyOrder{}}, 8, "Sort");
  std::vector<Batch> got;
  for (int p = 0; p < source.num_partitions(); ++p) {
    auto reader = source.open(p, 300);
    while (std::optional<Batch> b = reader->next()) got.push_back(std::move(*b));
  }
  const Batch all = Batch::concat(got);
  ASSERT_EQ(all.num_rows(), 4000);
  for (int64_t i = 0; i < 4000; ++i) {
    EXPECT_EQ(all.column(2).value<int64_t>(i), i / 1000);
    EXPECT_EQ(all.column(3).value<int64_t>(i), i % 1000);
  }
}

TEST(GatherParts, SameAsGatheringTheConcatenation) {
  Schema sch({{"i", int64()}, {"f", float64()}, {"n", int64()}, {"s", utf8()}});
  std::mt19937_64 rng(7);
  std::vector<Batch> parts;
  for (int64_t size : {64, 64, 64, 17, 0, 40}) {
    std::vector<int64_t> i;
    std::vector<double> f;
    std::vector<std::optional<int64_t>> n;
    std::vector<std::string> s;
    for (int64_t r = 0; r < size; ++r) {
      i.push_back(static_cast<int64_t>(rng()));
      f.push_back(static_cast<double>(rng() % 1000) / 7);
      n.push_back(rng() % 3 == 0 ? std::nullopt : std::optional<int64_t>(r));
      s.push_back("v" + std::to_string(rng() % 100));
    }
    parts.push_back(
        Batch(sch, {Column::from(i), Column::from(f), Column::from(n), Column::from(s)}));
  }
  const Batch all = Batch::concat(parts);
  std::vector<int64_t> rows;
  for (int k = 0; k < 500; ++k) rows.push_back(static_cast<int64_t>(rng() % all.num_rows()));
  expect_same(gather(parts, rows), gather(all, rows));
  // Equal-sized parts but the last: rows are found by division.
  std::vector<Batch> even(parts.begin(), parts.begin() + 4);
  const Batch even_all = Batch::concat(even);
  std::vector<int64_t> in_even;
  for (int k = 0; k < 300; ++k)
    in_even.push_back(static_cast<int64_t>(rng() % even_all.num_rows()));
  expect_same(gather(even, in_even), gather(even_all, in_even));
}
