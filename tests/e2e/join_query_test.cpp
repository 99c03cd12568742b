// Hash joins through the public API, checked as multisets against a nested-loop join written in
// the test, for every join type and 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

RunOptions threads(int n) {
  RunOptions o;
  o.threads = n;
  return o;
}

/// Skewed, nullable keys k1 (int64) and k2 (utf8), a payload `v`, and `x` on both sides (a
/// name clash).
Table side(int64_t n, uint32_t seed, const std::string& payload) {
  std::mt19937_64 rng(seed);
  std::vector<std::optional<int64_t>> k1;
  std::vector<std::optional<std::string>> k2;
  std::vector<int64_t> v, x;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    k1.push_back(r % 11 == 0 ? std::nullopt
                             : std::optional<int64_t>((r >> 8) % 3 == 0 ? 0 : (r >> 12) % 40));
    k2.push_back(r % 13 == 0
                     ? std::nullopt
                     : std::optional<std::string>(std::string(1, char('a' + (r >> 20) % 2))));
    v.push_back(i);
    x.push_back(static_cast<int64_t>(seed) * 1000000 + i);
  }
  return Table::from_columns({{"k1", Column::from(k1)},
                              {"k2", Column::from(k2)},
                              {payload, Column::from(v)},
                              {"x", Column::from(x)}});
}

std::string cell(const Column& c, int64_t i) { return c.is_null(i) ? "null" : to_string(c.get(i)); }

std::vector<std::string> rows_of(const Table& t) {
  std::vector<std::string> out;
  std::vector<Column> cols;
  for (const Field& f : t.schema().fields()) cols.push_back(t.column(f.name));
  for (int64_t r = 0; r < t.num_rows(); ++r) {
    std::string row;
    for (const Column& c : cols) row += cell(c, r) + "|";
    out.push_back(row);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The nested-loop reference: output columns k1, k2, lv, x, rv, x_right (semi/anti: k1, k2, lv, x).
std::vector<std::string> reference(const Table& l, const Table& r, JoinType type) {
  const Column lk1 = l.column("k1"), lk2 = l.column("k2"), lv = l.column("lv"), lx = l.column("x");
  const Column rk1 = r.column("k1"), rk2 = r.column("k2"), rv = r.column("rv"), rx = r.column("x");
  auto eq = [&](int64_t i, int64_t j) {
    return !lk1.is_null(i) && !lk2.is_null(i) && !rk1.is_null(j) && !rk2.is_null(j) &&
           lk1.get(i) == rk1.get(j) && lk2.get(i) == rk2.get(j);
  };
  std::vector<std::string> out;
  std::vector<bool> right_matched(static_cast<size_t>(r.num_rows()), false);
  for (int64_t i = 0; i < l.num_rows(); ++i) {
    const std::string left =
        cell(lk1, i) + "|" + cell(lk2, i) + "|" + cell(lv, i) + "|" + cell(lx, i) + "|";
    bool any = false;
    for (int64_t j = 0; j < r.num_rows(); ++j) {
      if (!eq(i, j)) continue;
      any = true;
      right_matched[static_cast<size_t>(j)] = true;
      if (type != JoinType::Semi && type != JoinType::Anti)
        out.push_back(left + cell(rv, j) + "|" + cell(rx, j) + "|");
    }
    if (type == JoinType::Semi && any) out.push_back(left);
    if (type == JoinType::Anti && !any) out.push_back(left);
    if ((type == JoinType::Left || type == JoinType::Full) && !any)
      out.push_back(left + "null|null|");
  }
  if (type == JoinType::Right || type == JoinType::Full) {
    for (int64_t j = 0; j < r.num_rows(); ++j)
      if (!right_matched[static_cast<size_t>(j)])
        out.push_back(cell(rk1, j) + "|" + cell(rk2, j) + "|null|null|" + cell(rv, j) + "|" +
                      cell(rx, j) + "|");
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct JoinCase {
  JoinType type;
  int threads;
};

}  // namespace

class JoinTypes : public testing::TestWithParam<JoinCase> {};

TEST_P(JoinTypes, MatchesNestedLoopJoinAsMultiset) {
  const JoinCase c = GetParam();
  Table l = side(3000, 1, "lv"), r = side(700, 2, "rv");
  DataFrame joined = from_table(l, 5).join(from_table(r, 3), {"k1", "k2"}, c.type);
  Table got = joined.collect(threads(c.threads));
  if (c.type == JoinType::Semi || c.type == JoinType::Anti)
    EXPECT_EQ(got.schema().to_string(), "k1: int64, k2: utf8, lv: int64, x: int64");
  else
    EXPECT_EQ(got.schema().to_string(),
              "k1: int64, k2: utf8, lv: int64, x: int64, rv: int64, x_right: int64");
  std::vector<std::string> want = reference(l, r, c.type);
  EXPECT_GT(want.size(), 0u);
  EXPECT_EQ(rows_of(got), want);
}

INSTANTIATE_TEST_SUITE_P(All, JoinTypes,
                         testing::Values(JoinCase{JoinType::Inner, 1}, JoinCase{JoinType::Inner, 2},
                                         JoinCase{JoinType::Inner, 4}, JoinCase{JoinType::Left, 1},
                                         JoinCase{JoinType::Left, 4}, JoinCase{JoinType::Right, 1},
                                         JoinCase{JoinType::Right, 2}, JoinCase{JoinType::Full, 1},
                                         JoinCase{JoinType::Full, 4}, JoinCase{JoinType::Semi, 2},
                                         JoinCase{JoinType::Anti, 1}, JoinCase{JoinType::Anti, 4}));

TEST(Join, ProbeOrderIsKeptAndThenGroupBy) {
  // Inner join keeps the left side's order; a group-by on the result sums correctly.
  Table dim =
      Table::from_columns({{"k", Column::from(std::vector<int64_t>{0, 1, 2})},
                           {"name", Column::from(std::vector<std::string>{"a", "b", "c"})}});
  Table got = range(1000, 4)
                  .with_column("k", col("id") % lit(int64_t{4}))
                  .join(from_table(dim), {"k"})
                  .collect(threads(2));
  ASSERT_EQ(got.num_rows(), 750);
  int64_t prev = -1;
  for (int64_t i = 0; i < got.num_rows(); ++i) {
    ASSERT_GT(got.column("id").value<int64_t>(i), prev);
    prev = got.column("id").value<int64_t>(i);
  }
  Table sums = range(1000, 4)
                   .with_column("k", col("id") % lit(int64_t{4}))
                   .join(from_table(dim), {"k"})
                   .group_by({col("name")})
                   .agg({col("id").count().alias("n")})
                   .collect(threads(2));
  ASSERT_EQ(sums.num_rows(), 3);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(sums.column("n").value<int64_t>(i), 250);
}

TEST(Join, EmptyBuildSide) {
  Table r = side(10, 2, "rv");
  DataFrame empty_right = from_table(r).where(col("rv") < lit(int64_t{0}));
  Table l = side(50, 1, "lv");
  EXPECT_EQ(from_table(l, 2).join(empty_right, {"k1"}).collect().num_rows(), 0);
  EXPECT_EQ(from_table(l, 2).join(empty_right, {"k1"}, JoinType::Left).collect().num_rows(), 50);
  EXPECT_EQ(from_table(l, 2).join(empty_right, {"k1"}, JoinType::Anti).collect().num_rows(), 50);
}

TEST(Join, Mistakes) {
  DataFrame l = from_table(side(10, 1, "lv"));
  DataFrame r = from_table(side(10, 2, "rv"));
  try {
    l.join(r.with_column("k1", col("k1").cast(float64())), {"k1"});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("left 'k1' is int64"), std::string::npos) << m;
    EXPECT_NE(m.find("right 'k1' is float64"), std::string::npos) << m;
  }
  try {
    l.join(r, {"lv"});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'lv' is not a column of the right side"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(l.join(r, {}), InvalidArgument);
}
