// Failed-row isolation in the pool stage: under OnError::Null or Skip only the rows whose own
// call fails are nulled or dropped, every other row keeps its result, and the failed rows are
// recorded as rejected, in input order, across partitions; max_failed_rows ends the query.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/operators/actor_pool_operator.h"
#include "exec_test_kit.h"

namespace ember {
namespace {

using namespace test;

/// Returns x * 10, and throws "bad row <x>" for a batch holding any x divisible by 97.
class Picky {
 public:
  explicit Picky(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = x.value<int64_t>(i);
      if (v % 97 == 0) throw std::runtime_error("bad row " + std::to_string(v));
      out.push_back(v * 10);
    }
    return Column::from(std::move(out));
  }
};

Schema xy() { return Schema({{"x", int64()}, {"y", int64()}}); }

std::shared_ptr<const UdfSpec> picky(OnError policy, int64_t max_failed_rows = -1) {
  Udf u = Udf::cls<Picky>("picky").returns(int64()).concurrency(2).batch_size(256).on_error(policy);
  if (max_failed_rows >= 0) u = u.max_failed_rows(max_failed_rows);
  return detail::UdfAccess::spec(u);
}

/// Rows 0..n-1 in `parts` partitions of consecutive rows, in morsels of 1000.
TableSource numbers_source(int64_t n, int parts) {
  std::vector<std::vector<Batch>> partitions(static_cast<size_t>(parts));
  const int64_t per = (n + parts - 1) / parts;
  for (int p = 0; p < parts; ++p) {
    for (int64_t at = p * per; at < std::min(n, (p + 1) * per); at += 1000)
      partitions[static_cast<size_t>(p)].push_back(
          numbers(at, std::min<int64_t>(1000, std::min(n, (p + 1) * per) - at)));
  }
  return TableSource(x_schema(), std::move(partitions), "numbers");
}

Table run_picky(TestQuery& q, int64_t n, int parts) {
  Pipeline p;
  p.add(std::make_shared<ActorPoolOperator>(0, std::vector<int>{0}, std::vector<std::string>{"x"},
                                            xy()));
  p.schema = xy();
  CollectSink sink(xy());
  TableSource source = numbers_source(n, parts);
  return run_into(q, p, source, sink, 3);
}

/// The rejected rows as (x, error) pairs.
std::vector<std::pair<int64_t, std::string>> rejected(TestQuery& q) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const Batch& b : q.query.rejected(0).batches()) {
    EXPECT_EQ(b.schema().field(0).name, "udf");
    EXPECT_EQ(b.schema().field(1).name, "error");
    EXPECT_EQ(b.schema().field(2).name, "x");
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      EXPECT_EQ(b.column(0).value<std::string_view>(i), "picky");
      out.emplace_back(b.column(2).value<int64_t>(i),
                       std::string(b.column(1).value<std::string_view>(i)));
    }
  }
  return out;
}

void expect_rejected_are_the_bad_rows(TestQuery& q, int64_t n) {
  auto rows = rejected(q);
  std::vector<int64_t> xs;
  for (const auto& [x, error] : rows) {
    xs.push_back(x);
    EXPECT_NE(error.find("bad row " + std::to_string(x)), std::string::npos) << error;
  }
  std::vector<int64_t> bad;
  for (int64_t x = 0; x < n; x += 97) bad.push_back(x);
  EXPECT_EQ(xs, bad) << "exactly the failing rows, in input order";
  EXPECT_EQ(q.query.rejected(0).count(), static_cast<int64_t>(bad.size()));
}

TEST(PoolStageIsolation, NullNullsExactlyTheFailingRows) {
  const int64_t n = 20000;
  TestQuery q({picky(OnError::Null)});
  Table t = run_picky(q, n, 3);
  EXPECT_EQ(values(t, 0), iota(n));
  Column y = t.column("y");
  for (int64_t x = 0; x < n; ++x) {
    if (x % 97 == 0) {
      EXPECT_TRUE(y.is_null(x)) << x;
    } else {
      ASSERT_FALSE(y.is_null(x)) << x;
      EXPECT_EQ(y.value<int64_t>(x), x * 10) << x;
    }
  }
  expect_rejected_are_the_bad_rows(q, n);
}

TEST(PoolStageIsolation, SkipDropsExactlyTheFailingRows) {
  const int64_t n = 20000;
  TestQuery q({picky(OnError::Skip)});
  Table t = run_picky(q, n, 3);
  std::vector<int64_t> kept, tens;
  for (int64_t x = 0; x < n; ++x) {
    if (x % 97 == 0) continue;
    kept.push_back(x);
    tens.push_back(x * 10);
  }
  EXPECT_EQ(values(t, 0), kept);
  EXPECT_EQ(values(t, 1), tens);
  expect_rejected_are_the_bad_rows(q, n);
}

/// Returns x * 10, and throws "bad row <x>" for a batch holding an x whose last digit is 3,
/// 4 or 5: runs of failing rows, several in one piece.
class RunsOfBadRows {
 public:
  explicit RunsOfBadRows(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = x.value<int64_t>(i);
      if (v % 10 >= 3 && v % 10 <= 5) throw std::runtime_error("bad row " + std::to_string(v));
      out.push_back(v * 10);
    }
    return Column::from(std::move(out));
  }
};

TEST(PoolStageIsolation, UnevenPartsAndRunsOfFailingRowsKeepTheirOrder) {
  // 100-row chunks split in 8 uneven parts (12 or 13 rows), then in parts of 1 or 2 rows: each
  // part holds several failing rows, and every split's parts must come back in row order.
  const int64_t n = 3000;
  for (const OnError policy : {OnError::Null, OnError::Skip}) {
    TestQuery q({detail::UdfAccess::spec(
        Udf::cls<RunsOfBadRows>("picky").returns(int64()).concurrency(2).batch_size(100).on_error(
            policy))});
    Table t = run_picky(q, n, 3);
    std::vector<int64_t> xs, ys, bad;
    for (int64_t x = 0; x < n; ++x) {
      const bool fails = x % 10 >= 3 && x % 10 <= 5;
      if (fails) bad.push_back(x);
      if (fails && policy == OnError::Skip) continue;
      xs.push_back(x);
      ys.push_back(x * 10);
    }
    EXPECT_EQ(values(t, 0), xs);
    Column y = t.column("y");
    ASSERT_EQ(y.size(), static_cast<int64_t>(xs.size()));
    for (int64_t i = 0; i < y.size(); ++i) {
      const int64_t x = xs[static_cast<size_t>(i)];
      if (x % 10 >= 3 && x % 10 <= 5) {
        EXPECT_TRUE(y.is_null(i)) << x;
      } else {
        ASSERT_FALSE(y.is_null(i)) << x;
        EXPECT_EQ(y.value<int64_t>(i), x * 10) << x;
      }
    }
    std::vector<int64_t> rejected_xs;
    for (const auto& [x, error] : rejected(q)) {
      rejected_xs.push_back(x);
      EXPECT_NE(error.find("bad row " + std::to_string(x)), std::string::npos) << error;
    }
    EXPECT_EQ(rejected_xs, bad) << "exactly the failing rows, in input order";
  }
}

TEST(PoolStageIsolation, SkipOfEveryRowOfAChunkEmitsNothingForIt) {
  // One row, 0, which fails: its chunk yields no batch at all.
  TestQuery q({picky(OnError::Skip)});
  Table t = run_picky(q, 1, 1);
  EXPECT_EQ(t.num_rows(), 0);
  EXPECT_EQ(rejected(q).size(), 1u);
}

TEST(PoolStageIsolation, MoreFailedRowsThanTheLimitFailTheQuery) {
  TestQuery q({picky(OnError::Null, 5)});
  try {
    run_picky(q, 20000, 3);
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("udf 'picky': "), std::string::npos) << m;
    EXPECT_NE(m.find("rows failed, more than max_failed_rows = 5"), std::string::npos) << m;
  }
}

TEST(PoolStageIsolation, RaiseFailsTheQueryWithTheCallsError) {
  TestQuery q({picky(OnError::Raise)});
  try {
    run_picky(q, 1000, 2);
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("bad row"), std::string::npos) << e.what();
  }
  EXPECT_EQ(q.query.rejected(0).count(), 0);
}

/// The row count of each call, in the order the calls began.
std::mutex sizes_mu;
std::vector<int64_t> sizes;

/// Returns x * 10, throws for x == 5, and logs each call's row count in `sizes`.
class OneBadRow {
 public:
  explicit OneBadRow(const InitArgs&) {}
  Column operator()(const Batch& in) {
    {
      std::lock_guard lock(sizes_mu);
      sizes.push_back(in.num_rows());
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = in.column(0).value<int64_t>(i);
      if (v == 5) throw std::runtime_error("bad row 5");
      out.push_back(v * 10);
    }
    return Column::from(std::move(out));
  }
};

TEST(PoolStageIsolation, AfterAFailureChunksGoInSmallPiecesThenGrowBack) {
  sizes.clear();
  const int64_t n = 1024 * 40;
  TestQuery q({detail::UdfAccess::spec(
      Udf::cls<OneBadRow>("picky").returns(int64()).concurrency(2).batch_size(1024).on_error(
          OnError::Null))});
  Table t = run_picky(q, n, 1);
  EXPECT_EQ(values(t, 0), iota(n));
  Column y = t.column("y");
  for (int64_t x = 0; x < n; ++x) {
    if (x == 5) {
      EXPECT_TRUE(y.is_null(x));
    } else {
      ASSERT_EQ(y.value<int64_t>(x), x * 10) << x;
    }
  }
  ASSERT_EQ(rejected(q).size(), 1u);
  std::lock_guard lock(sizes_mu);
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  // Every row once but row 5, plus the failed calls: the first chunk's (1024 rows), then at
  // each level the part of 8 holding row 5 (128, 16, 2 rows), and row 5 alone.
  EXPECT_EQ(total, n - 1 + 1024 + 128 + 16 + 2 + 1) << "no row ran more often than isolation needs";
  // Isolation splits a failed piece in 8: sizes below the pieces' 64 come from it alone.
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), int64_t{16}), 8);
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), int64_t{2}), 8);
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), int64_t{1}), 2);
  // Every later chunk goes in 64-row pieces, and once 16 of them succeeded in a row, the
  // pieces grow back to whole chunks.
  auto nth_64 = sizes.begin();
  for (int i = 0; i < 16 && nth_64 != sizes.end(); ++i)
    nth_64 = std::find(i == 0 ? nth_64 : nth_64 + 1, sizes.end(), int64_t{64});
  ASSERT_NE(nth_64, sizes.end()) << "later chunks went in pieces of batch_size / 16";
  EXPECT_NE(std::find(nth_64, sizes.end(), int64_t{1024}), sizes.end())
      << "pieces grew back to batch_size after runs of successes";
}

}  // namespace
}  // namespace ember
