// The int64 join lookups (a direct array over a dense key range, the hash index otherwise)
// against a scan of the build rows: the same matches in build order, nulls, duplicates, keys
// outside the range and int64's extremes included; and the encoded-key path for two keys.
#include "exec/relational/join_hash_table.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "exec/operators/join_probe_operator.h"

using namespace ember;

namespace {

using Keys = std::vector<std::optional<int64_t>>;

/// Every build row whose key equals probe row i's, by scanning: what each path must give.
std::vector<std::vector<int64_t>> scanned(const Keys& build, const Keys& probe) {
  std::vector<std::vector<int64_t>> out(probe.size());
  for (size_t i = 0; i < probe.size(); ++i)
    for (size_t r = 0; r < build.size(); ++r)
      if (probe[i] && build[r] && *probe[i] == *build[r]) out[i].push_back(static_cast<int64_t>(r));
  return out;
}

std::vector<std::vector<int64_t>> looked_up(const JoinHashTable& t, const Keys& probe) {
  std::vector<int64_t> heads;
  t.int_heads(Column::from(probe), heads);
  std::vector<std::vector<int64_t>> out(probe.size());
  for (size_t i = 0; i < probe.size(); ++i)
    for (int64_t r = heads[i]; r >= 0; r = t.next_match(r)) out[i].push_back(r);
  return out;
}

/// `n` keys from [0, range) times `scale` (1: dense, the direct array; large: the index), some
/// null, duplicates when range < n.
Keys make_keys(size_t n, int64_t range, int64_t scale, std::mt19937_64& rng) {
  Keys k;
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 10 == 0)
      k.push_back(std::nullopt);
    else
      k.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(range)) * scale - 7);
  }
  return k;
}

}  // namespace

TEST(JoinHashTable, IntLookupsMatchAScanOnDenseAndSparseKeys) {
  std::mt19937_64 rng(5);
  for (const int64_t scale : {int64_t{1}, int64_t{1'000'000'007}}) {
    for (const int64_t range : {int64_t{50}, int64_t{3000}}) {
      const Keys build = make_keys(2000, range, scale, rng);
      Keys probe = make_keys(3000, range + 20, scale, rng);
      for (int64_t extreme : {std::numeric_limits<int64_t>::min(),
                              std::numeric_limits<int64_t>::max(), int64_t{-8}, int64_t{0}})
        probe.push_back(extreme);
      Schema s({{"k", int64()}});
      JoinHashTable t({0});
      t.build(Batch(s, {Column::from(build)}));
      EXPECT_EQ(looked_up(t, probe), scanned(build, probe))
          << "scale " << scale << " range " << range;
      // for_each_int_match, one key at a time, agrees with the batch lookup.
      for (size_t i = 0; i < probe.size(); ++i) {
        if (!probe[i]) continue;
        std::vector<int64_t> one;
        t.for_each_int_match(*probe[i], [&](int64_t r) { one.push_back(r); });
        EXPECT_EQ(one, scanned(build, {probe[i]})[0]);
      }
    }
  }
}

TEST(JoinHashTable, AllNullOrEmptyBuildMatchesNothing) {
  Schema s({{"k", int64()}});
  for (const Keys& build : {Keys{}, Keys{std::nullopt, std::nullopt}}) {
    JoinHashTable t({0});
    t.build(Batch(s, {Column::from(build)}));
    const Keys probe = {0, std::nullopt, 5};
    EXPECT_EQ(looked_up(t, probe), scanned(build, probe));
  }
}

TEST(JoinHashTable, TwoKeyColumnsMatchByEncodedKey) {
  std::mt19937_64 rng(9);
  const Keys a = make_keys(500, 7, 1, rng), b = make_keys(500, 5, 1, rng);
  Schema s({{"a", int64()}, {"b", int64()}});
  JoinHashTable t({0, 1});
  t.build(Batch(s, {Column::from(a), Column::from(b)}));
  const Keys pa = make_keys(300, 8, 1, rng), pb = make_keys(300, 6, 1, rng);
  EncodedKeys enc;
  encode_keys({Column::from(pa), Column::from(pb)}, 300, enc);
  ASSERT_GT(enc.width, 0);
  for (int64_t i = 0; i < 300; ++i) {
    std::vector<int64_t> got, want;
    if (!enc.any_null[static_cast<size_t>(i)])
      t.for_each_match(enc.row(i), [&](int64_t r) { got.push_back(r); });
    const auto p = static_cast<size_t>(i);
    for (size_t r = 0; r < a.size(); ++r)
      if (pa[p] && pb[p] && a[r] && b[r] && *pa[p] == *a[r] && *pb[p] == *b[r])
        want.push_back(static_cast<int64_t>(r));
    EXPECT_EQ(got, want) << "row " << i;
  }
}

TEST(JoinProbe, InnerJoinOnUniqueIntKeysKeepsMatchedRowsInOrder) {
  // Unique build keys (dense: the direct array; sparse: the index); probe rows that miss, null
  // keys, and a batch where every row matches once (the left columns shared as they are).
  for (const int64_t scale : {int64_t{1}, int64_t{1'000'000'007}}) {
    Schema right({{"k", int64()}, {"r", int64()}});
    Schema left({{"k", int64()}, {"l", int64()}});
    std::vector<int64_t> bk, br;
    for (int64_t i = 0; i < 100; ++i) bk.push_back((99 - i) * scale), br.push_back(1000 + i);
    auto table = std::make_shared<JoinHashTable>(std::vector<int>{0});
    table->build(Batch(right, {Column::from(bk), Column::from(br)}));
    ASSERT_TRUE(table->unique_keys());
    JoinLayout layout;
    layout.type = JoinType::Inner;
    layout.output = Schema({{"k", int64()}, {"l", int64()}, {"r", int64()}});
    layout.left_keys = {0};
    layout.right_keys = {0};
    layout.left_columns = 2;
    layout.right_columns = {1};
    JoinProbeOperator probe(table, layout);
    const Keys some = {5 * scale, 200 * scale, std::nullopt, 0, 99 * scale, -scale};
    Batch out = probe.execute(
        Batch(left, {Column::from(some), Column::from(std::vector<int64_t>{0, 1, 2, 3, 4, 5})}));
    ASSERT_EQ(out.num_rows(), 3);  // rows 0, 3, 4 match; build row of key x*scale: 99 - x
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t l = std::vector<int64_t>{0, 3, 4}[static_cast<size_t>(j)];
      const int64_t x = *some[static_cast<size_t>(l)] / scale;
      EXPECT_EQ(out.column(1).value<int64_t>(j), l);
      EXPECT_EQ(out.column(2).value<int64_t>(j), 1000 + 99 - x);
    }
    const Keys all = {7 * scale, 7 * scale, 0};
    Batch every = probe.execute(
        Batch(left, {Column::from(all), Column::from(std::vector<int64_t>{10, 11, 12})}));
    ASSERT_EQ(every.num_rows(), 3);
    EXPECT_EQ(every.column(1).value<int64_t>(2), 12);
    EXPECT_EQ(every.column(2).value<int64_t>(0), 1092);
    EXPECT_EQ(every.column(2).value<int64_t>(2), 1099);
  }
}
