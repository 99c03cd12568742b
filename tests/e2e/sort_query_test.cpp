// sort, top_k and distinct through the public API, checked against std::stable_sort and
// std::set over the same rows, for 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "ember/ember.h"

using namespace ember;

namespace {

RunOptions threads(int n) {
  RunOptions o;
  o.threads = n;
  return o;
}

/// a: int64 with nulls and many ties; s: utf8 with nulls; f: float64 with NaN; id: row number.
Table make_table(int64_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::optional<int64_t>> a;
  std::vector<std::optional<std::string>> s;
  std::vector<double> f;
  std::vector<int64_t> id;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    a.push_back(r % 9 == 0 ? std::nullopt : std::optional<int64_t>((r >> 8) % 40));
    s.push_back(r % 11 == 0
                    ? std::nullopt
                    : std::optional<std::string>(std::string(1, char('a' + (r >> 16) % 5))));
    f.push_back(r % 17 == 0 ? std::nan("") : static_cast<double>((r >> 24) % 100) - 50.0);
    id.push_back(i);
  }
  return Table::from_columns({{"a", Column::from(a)},
                              {"s", Column::from(s)},
                              {"f", Column::from(f)},
                              {"id", Column::from(id)}});
}

/// Reference order of rows by (a DESC NULLS FIRST, s ASC NULLS LAST), stable.
std::vector<int64_t> reference_order(const Table& t) {
  const Column a = t.column("a"), s = t.column("s");
  std::vector<int64_t> idx(static_cast<size_t>(t.num_rows()));
  std::iota(idx.begin(), idx.end(), 0);
  auto key_a = [&](int64_t i) {  // nulls first, then descending
    return a.is_null(i) ? std::make_tuple(0, int64_t{0}) : std::make_tuple(1, -a.value<int64_t>(i));
  };
  auto key_s = [&](int64_t i) {  // ascending, nulls last
    return s.is_null(i) ? std::make_tuple(1, std::string())
                        : std::make_tuple(0, s.value<std::string>(i));
  };
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) {
    if (key_a(x) != key_a(y)) return key_a(x) < key_a(y);
    return key_s(x) < key_s(y);
  });
  return idx;
}

std::vector<SortKey> keys() { return {SortKey{col("a"), true, true}, SortKey{col("s")}}; }

}  // namespace

class SortThreads : public testing::TestWithParam<int> {};

TEST_P(SortThreads, MultiKeyStableSortMatchesStableSort) {
  Table t = make_table(30000, 5);
  Table got = from_table(t, 7).sort(keys()).collect(threads(GetParam()));
  std::vector<int64_t> want = reference_order(t);
  ASSERT_EQ(got.num_rows(), t.num_rows());
  const Column id = got.column("id");
  for (int64_t r = 0; r < got.num_rows(); ++r)
    ASSERT_EQ(id.value<int64_t>(r), want[static_cast<size_t>(r)]) << "row " << r;
}

TEST_P(SortThreads, TopKIsThePrefixOfTheSort) {
  Table t = make_table(200000, 9);
  for (int64_t k : {0, 1, 100, 5000}) {
    Table got = from_table(t, 5).top_k(k, keys()).collect(threads(GetParam()));
    std::vector<int64_t> want = reference_order(t);
    ASSERT_EQ(got.num_rows(), k);
    for (int64_t r = 0; r < k; ++r)
      ASSERT_EQ(got.column("id").value<int64_t>(r), want[static_cast<size_t>(r)]) << k << " " << r;
  }
}

TEST_P(SortThreads, SortThenLimitEqualsTopK) {
  Table t = make_table(50000, 13);
  auto df = from_table(t, 4);
  Table a = df.sort(keys()).limit(77).collect(threads(GetParam()));
  Table b = df.top_k(77, keys()).collect(threads(GetParam()));
  ASSERT_EQ(a.num_rows(), 77);
  for (int64_t r = 0; r < 77; ++r) EXPECT_EQ(a.column("id").get(r), b.column("id").get(r));
  EXPECT_NE(df.sort(keys()).limit(77).explain().find("TopK 77 by a DESC NULLS FIRST, s"),
            std::string::npos);
}

TEST_P(SortThreads, DistinctOverSomeAndAllColumns) {
  Table t = make_table(20000, 17);
  Table some = from_table(t, 6).distinct({"s", "a"}).collect(threads(GetParam()));
  // One row per (s, a), the first in input order; columns in input order.
  std::map<std::tuple<std::optional<std::string>, std::optional<int64_t>>, int64_t> first;
  const Column a = t.column("a"), s = t.column("s");
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    auto key = std::make_tuple(
        s.is_null(i) ? std::nullopt : std::optional<std::string>(s.value<std::string>(i)),
        a.is_null(i) ? std::nullopt : std::optional<int64_t>(a.value<int64_t>(i)));
    first.emplace(key, i);
  }
  EXPECT_EQ(some.schema().to_string(), "a: int64, s: utf8, f: float64, id: int64");
  ASSERT_EQ(some.num_rows(), static_cast<int64_t>(first.size()));
  std::set<int64_t> got_ids, want_ids;
  for (int64_t r = 0; r < some.num_rows(); ++r) got_ids.insert(some.column("id").value<int64_t>(r));
  for (const auto& [k, i] : first) want_ids.insert(i);
  EXPECT_EQ(got_ids, want_ids);

  Table all = from_table(t, 3).select({col("a"), col("s")}).distinct().collect(threads(GetParam()));
  EXPECT_EQ(all.num_rows(), static_cast<int64_t>(first.size()));
  EXPECT_EQ(all.schema().to_string(), "a: int64, s: utf8");
}

INSTANTIATE_TEST_SUITE_P(Threads, SortThreads, testing::Values(1, 2, 4));

TEST(Sort, FloatsNaNAboveNumbersAndExpressionsAsKeys) {
  Table t = make_table(1000, 3);
  Table got =
      from_table(t, 3).sort({SortKey{col("f")}, SortKey{col("id") % lit(int64_t{7})}}).collect();
  const Column f = got.column("f");
  bool seen_nan = false;
  for (int64_t r = 0; r < got.num_rows(); ++r) {
    if (std::isnan(f.value<double>(r))) {
      seen_nan = true;
    } else {
      ASSERT_FALSE(seen_nan) << "a number after NaN at row " << r;
      if (r > 0 && !std::isnan(f.value<double>(r - 1))) {
        ASSERT_LE(f.value<double>(r - 1), f.value<double>(r));
      }
    }
  }
  EXPECT_TRUE(seen_nan);
}

TEST(Sort, Mistakes) {
  DataFrame df = from_table(make_table(10, 1));
  EXPECT_THROW(df.sort({}), InvalidArgument);
  EXPECT_THROW(df.top_k(-1, keys()), InvalidArgument);
  try {
    df.sort({SortKey{col("missing")}});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos) << e.what();
  }
  try {
    df.distinct({"nope"});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
}

TEST(Sort, KeysWithoutNullsMergeRunsStablyAcrossPartitionsAndSpills) {
  // Fixed-width keys without nulls take the word path in each run and in the merge: ties (few
  // distinct values, NaN and both zeros among them) must keep partition order, then row order.
  std::mt19937_64 rng(17);
  const double vals[] = {1.5, -0.0, 0.0, std::nan(""), -2.0, 1.5};
  std::vector<double> v;
  std::vector<int64_t> k, id;
  for (int64_t i = 0; i < 20000; ++i) {
    v.push_back(vals[rng() % 6]);
    k.push_back(static_cast<int64_t>(rng() % 3));
    id.push_back(i);
  }
  std::vector<int64_t> want(id);
  std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
    const double x = v[static_cast<size_t>(a)], y = v[static_cast<size_t>(b)];
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn != yn) return xn;  // descending: NaN (above every number) first
    if (!xn && x != y) return x > y;
    return k[static_cast<size_t>(a)] < k[static_cast<size_t>(b)];
  });
  Table t = Table::from_columns(
      {{"v", Column::from(v)}, {"k", Column::from(k)}, {"id", Column::from(id)}});
  for (const int64_t budget : {int64_t{0}, int64_t{32 * 1024}}) {
    RunOptions o;
    o.threads = 2;
    o.memory_budget_bytes = budget;
    Table got = from_table(t, 5).sort({SortKey{col("v"), true}, SortKey{col("k")}}).collect(o);
    ASSERT_EQ(got.num_rows(), 20000);
    for (int64_t r = 0; r < got.num_rows(); ++r)
      ASSERT_EQ(got.column("id").value<int64_t>(r), want[static_cast<size_t>(r)])
          << "row " << r << ", budget " << budget;
  }
}
