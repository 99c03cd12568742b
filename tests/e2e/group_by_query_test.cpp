// Hash group-by through the public API, checked against a reference computed row by row in the
// test (std::map over the keys), for 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
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

/// Skewed, nullable keys: k (int64, a few hot values), s (utf8), v (float64), w (int64).
Table make_table(int64_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::optional<int64_t>> k, w;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<double>> v;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    k.push_back(r % 10 == 0 ? std::nullopt
                            : std::optional<int64_t>((r >> 8) % 4 == 0 ? 1 : (r >> 12) % 50));
    s.push_back(r % 13 == 0 ? std::nullopt
                            : std::optional<std::string>("s" + std::to_string((r >> 20) % 3)));
    v.push_back(r % 7 == 0 ? std::nullopt
                           : std::optional<double>(static_cast<double>((r >> 24) % 1000) / 8.0));
    w.push_back(r % 5 == 0 ? std::nullopt
                           : std::optional<int64_t>(static_cast<int64_t>((r >> 32) % 17)));
  }
  return Table::from_columns({{"k", Column::from(k)},
                              {"s", Column::from(s)},
                              {"v", Column::from(v)},
                              {"w", Column::from(w)}});
}

/// A key component as the reference orders it: nulls last.
template <class T>
struct NullsLast {
  std::optional<T> v;
  bool operator<(const NullsLast& o) const {
    if (!v || !o.v) return v.has_value() && !o.v.has_value();
    return *v < *o.v;
  }
};

struct Expected {
  double sum = 0;
  int64_t count = 0, rows = 0;
  std::optional<double> lo, hi;
  std::set<int64_t> distinct;
  std::optional<int64_t> first;
  bool seen = false;
};

std::optional<int64_t> opt_int(const Column& c, int64_t i) {
  return c.is_null(i) ? std::nullopt : std::optional<int64_t>(c.value<int64_t>(i));
}

}  // namespace

class GroupByThreads : public testing::TestWithParam<int> {};

TEST_P(GroupByThreads, TwoKeysEveryAggregateMatchesReference) {
  Table t = make_table(20000, 7);
  Table got = from_table(t, 5)
                  .group_by({col("k"), col("s")})
                  .agg({col("v").sum().alias("sum"), col("v").count().alias("n"),
                        col("v").min().alias("lo"), col("v").max().alias("hi"),
                        col("v").mean().alias("avg"), col("w").count_distinct().alias("dw"),
                        col("w").first().alias("fw"), lit(int64_t{1}).count().alias("rows")})
                  .collect(threads(GetParam()));

  using Key = std::tuple<NullsLast<int64_t>, NullsLast<std::string>>;
  std::map<Key, Expected> want;
  const Column k = t.column("k"), s = t.column("s"), v = t.column("v"), w = t.column("w");
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    Key key{{opt_int(k, i)},
            {s.is_null(i) ? std::nullopt : std::optional<std::string>(s.value<std::string>(i))}};
    Expected& e = want[key];
    ++e.rows;
    if (!e.seen) e.first = opt_int(w, i), e.seen = true;
    if (!w.is_null(i)) e.distinct.insert(w.value<int64_t>(i));
    if (v.is_null(i)) continue;
    const double x = v.value<double>(i);
    e.sum += x;
    ++e.count;
    e.lo = e.lo ? std::min(*e.lo, x) : x;
    e.hi = e.hi ? std::max(*e.hi, x) : x;
  }

  ASSERT_EQ(got.num_rows(), static_cast<int64_t>(want.size()));
  EXPECT_EQ(got.schema().to_string(),
            "k: int64, s: utf8, sum: float64, n: int64, lo: float64, hi: float64, avg: float64, "
            "dw: int64, fw: int64, rows: int64");
  int64_t row = 0;
  for (const auto& [key, e] : want) {  // std::map order is the documented output order
    SCOPED_TRACE("row " + std::to_string(row));
    EXPECT_EQ(opt_int(got.column("k"), row), std::get<0>(key).v);
    const Column gs = got.column("s");
    EXPECT_EQ(
        gs.is_null(row) ? std::nullopt : std::optional<std::string>(gs.value<std::string>(row)),
        std::get<1>(key).v);
    EXPECT_EQ(got.column("rows").value<int64_t>(row), e.rows);
    EXPECT_EQ(got.column("n").value<int64_t>(row), e.count);
    EXPECT_EQ(got.column("dw").value<int64_t>(row), static_cast<int64_t>(e.distinct.size()));
    EXPECT_EQ(opt_int(got.column("fw"), row), e.first);
    if (e.count == 0) {
      EXPECT_TRUE(got.column("sum").is_null(row));
      EXPECT_TRUE(got.column("lo").is_null(row));
    } else {
      EXPECT_NEAR(got.column("sum").value<double>(row), e.sum, 1e-6);
      EXPECT_EQ(got.column("lo").value<double>(row), *e.lo);
      EXPECT_EQ(got.column("hi").value<double>(row), *e.hi);
      EXPECT_NEAR(got.column("avg").value<double>(row), e.sum / static_cast<double>(e.count), 1e-9);
    }
    ++row;
  }
}

TEST_P(GroupByThreads, ManyGroupsAcrossHashPartitionsSumExactly) {
  const int64_t n = 300000;
  Table got = range(n, 7)
                  .with_column("g", col("id") % lit(int64_t{100003}))
                  .group_by({col("g")})
                  .agg({col("id").sum().alias("total"), col("id").count().alias("n")})
                  .collect(threads(GetParam()));
  ASSERT_EQ(got.num_rows(), 100003);
  const Column g = got.column("g"), total = got.column("total"), cnt = got.column("n");
  for (int64_t r = 0; r < got.num_rows(); ++r) {
    ASSERT_EQ(g.value<int64_t>(r), r);  // sorted by key
    int64_t want = 0, want_n = 0;
    for (int64_t id = r; id < n; id += 100003) want += id, ++want_n;
    ASSERT_EQ(total.value<int64_t>(r), want);
    ASSERT_EQ(cnt.value<int64_t>(r), want_n);
  }
}

TEST_P(GroupByThreads, FloatSumsAreTheSameOnEveryRun) {
  Table t = make_table(50000, 11);
  auto q = from_table(t, 6).group_by({col("s")}).agg({col("v").sum().alias("sum")});
  Table a = q.collect(threads(GetParam())), b = q.collect(threads(GetParam()));
  ASSERT_EQ(a.num_rows(), b.num_rows());
  for (int64_t r = 0; r < a.num_rows(); ++r)
    EXPECT_EQ(a.column("sum").get(r), b.column("sum").get(r));
}

INSTANTIATE_TEST_SUITE_P(Threads, GroupByThreads, testing::Values(1, 2, 4));

TEST(GroupBy, FloatBoolAndExpressionKeys) {
  Table t = Table::from_columns(
      {{"f", Column::from(std::vector<std::optional<double>>{0.0, -0.0, std::nan(""), 1.5,
                                                             std::nullopt, -std::nan(""), 1.5})},
       {"b", Column::from(std::vector<std::optional<bool>>{true, true, false, std::nullopt, false,
                                                           false, true})},
       {"x", Column::from(std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7})}});
  Table by_f = from_table(t, 3).group_by({col("f")}).agg({col("x").sum()}).collect();
  // 0.0 and -0.0 are one group, every NaN is one group (above numbers), null last.
  ASSERT_EQ(by_f.num_rows(), 4);
  EXPECT_EQ(by_f.column("f").value<double>(0), 0.0);
  EXPECT_EQ(by_f.column("x").value<int64_t>(0), 3);
  EXPECT_EQ(by_f.column("f").value<double>(1), 1.5);
  EXPECT_EQ(by_f.column("x").value<int64_t>(1), 11);
  EXPECT_TRUE(std::isnan(by_f.column("f").value<double>(2)));
  EXPECT_EQ(by_f.column("x").value<int64_t>(2), 9);
  EXPECT_TRUE(by_f.column("f").is_null(3));
  EXPECT_EQ(by_f.column("x").value<int64_t>(3), 5);

  Table by_b = from_table(t, 2)
                   .group_by({col("b"), (col("x") % lit(int64_t{2})).alias("odd")})
                   .agg({col("x").count().alias("n")})
                   .collect();
  // (false,0) (false,1) (true,0) (true,1) (null,0)
  ASSERT_EQ(by_b.num_rows(), 5);
  EXPECT_EQ(by_b.column("b").value<bool>(0), false);
  EXPECT_EQ(by_b.column("odd").value<int64_t>(0), 0);
  EXPECT_EQ(by_b.column("n").value<int64_t>(0), 1);  // x = 6
  EXPECT_EQ(by_b.column("n").value<int64_t>(1), 2);  // x = 3, 5
  EXPECT_EQ(by_b.column("n").value<int64_t>(2), 1);  // x = 2
  EXPECT_EQ(by_b.column("n").value<int64_t>(3), 2);  // x = 1, 7
  EXPECT_TRUE(by_b.column("b").is_null(4));
}

TEST(GroupBy, EmptyInputGivesNoGroups) {
  Table got = range(10, 2)
                  .where(col("id") < lit(int64_t{0}))
                  .group_by({col("id")})
                  .agg({col("id").count().alias("n")})
                  .collect();
  EXPECT_EQ(got.num_rows(), 0);
  EXPECT_EQ(got.schema().to_string(), "id: int64, n: int64");
}

TEST(GroupBy, GlobalCountDistinctAndFirst) {
  Table t = make_table(5000, 3);
  Table got = from_table(t, 4)
                  .agg({col("k").count_distinct().alias("dk"), col("s").first().alias("fs")})
                  .collect(threads(2));
  std::set<int64_t> ks;
  const Column k = t.column("k");
  for (int64_t i = 0; i < t.num_rows(); ++i)
    if (!k.is_null(i)) ks.insert(k.value<int64_t>(i));
  ASSERT_EQ(got.num_rows(), 1);
  EXPECT_EQ(got.column("dk").value<int64_t>(0), static_cast<int64_t>(ks.size()));
  EXPECT_EQ(got.column("fs").get(0), t.column("s").get(0));

  Table none = range(5, 2)
                   .where(col("id") > lit(int64_t{10}))
                   .agg({col("id").count_distinct().alias("d"), col("id").first().alias("f")})
                   .collect();
  ASSERT_EQ(none.num_rows(), 1);
  EXPECT_EQ(none.column("d").value<int64_t>(0), 0);
  EXPECT_TRUE(none.column("f").is_null(0));
}

TEST(GroupBy, MistakesNameTheColumn) {
  DataFrame df = from_table(make_table(10, 1));
  try {
    df.group_by({col("nope")}).agg({col("v").sum()});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown column 'nope'"), std::string::npos) << e.what();
  }
  try {
    df.group_by({col("k")}).agg({col("missing").max()});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos) << e.what();
  }
  try {
    df.group_by({col("k")}).agg({col("s").sum()});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("s.sum()"), std::string::npos) << e.what();
  }
  try {
    df.group_by({col("k")}).agg({col("k").sum()});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(df.group_by({col("k")}).agg({col("v")}), InvalidArgument);  // not an aggregate
}

TEST_P(GroupByThreads, ListCollectsEveryValueInInputOrder) {
  Table t = make_table(6000, 8);
  // The reference: each key's values (nulls included) in row order.
  std::map<NullsLast<int64_t>, std::vector<Value>> want;
  const Column k = t.column("k"), s = t.column("s");
  for (int64_t i = 0; i < t.num_rows(); ++i) want[{opt_int(k, i)}].push_back(s.get(i));
  auto q = from_table(t, 5).group_by({col("k")}).agg({col("s").list().alias("all")});
  for (const int64_t budget : {int64_t{0}, int64_t{1024}}) {
    RunOptions o = threads(GetParam());
    o.memory_budget_bytes = budget;
    Table got = q.collect(o);
    ASSERT_EQ(got.schema().to_string(), "k: int64, all: list<utf8>");
    ASSERT_EQ(got.num_rows(), static_cast<int64_t>(want.size()));
    int64_t r = 0;
    for (const auto& [key, items] : want) {
      EXPECT_EQ(opt_int(got.column("k"), r), key.v);
      EXPECT_EQ(got.column("all").get(r), Value(List{items, utf8()})) << "budget " << budget;
      ++r;
    }
  }
}

TEST(GroupBy, GlobalListOfListsAndOfNothing) {
  Table t = Table::from_columns(
      {{"xs", Column::from(std::vector<std::optional<std::vector<int64_t>>>{
                  std::vector<int64_t>{1, 2}, std::nullopt, std::vector<int64_t>{}})}});
  Table got = from_table(t, 3).agg({col("xs").list().alias("all")}).collect(threads(2));
  ASSERT_EQ(got.num_rows(), 1);
  EXPECT_EQ(got.schema().to_string(), "all: list<list<int64>>");
  EXPECT_EQ(to_string(got.column("all").get(0)), "[[1, 2], null, []]");
  Table none =
      range(5, 2).where(col("id") > lit(int64_t{10})).agg({col("id").list().alias("l")}).collect();
  ASSERT_EQ(none.num_rows(), 1);
  EXPECT_TRUE(none.column("l").is_null(0)) << "list() of no rows is null, as in SQL";
}
