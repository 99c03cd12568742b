// Division and remainder of an int64 column by an int64 literal (the precomputed-divisor path),
// checked row by row against C++'s own / and % over a spread of divisors and edge values.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "expr/evaluate.h"

namespace ember {
namespace {

TEST(ScalarDivisionTest, MatchesHardwareDivisionForEveryDivisorShape) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> xs = {0, 1, -1, 6, 7, 8, -6, -7, -8, kMin, kMax, kMin + 1, kMax - 1};
  std::mt19937_64 rng(42);
  for (int i = 0; i < 3000; ++i) xs.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  Batch batch(Schema({{"x", int64()}}), {Column::from(xs)});
  const std::vector<int64_t> divisors = {
      1, 2, 3, 7, -2, -7, 64, -64, 1000003, -1000003, kMax, kMin, kMin + 1, int64_t{1} << 62};
  for (int64_t d : divisors) {
    const Column q = evaluate(*detail::ExprAccess::node(col("x") / lit(d)), batch);
    const Column r = evaluate(*detail::ExprAccess::node(col("x") % lit(d)), batch);
    ASSERT_EQ(q.null_count(), 0);
    ASSERT_EQ(r.null_count(), 0);
    for (size_t i = 0; i < xs.size(); ++i) {
      ASSERT_EQ(q.value<int64_t>(int64_t(i)), xs[i] / d) << xs[i] << " / " << d;
      ASSERT_EQ(r.value<int64_t>(int64_t(i)), xs[i] % d) << xs[i] << " % " << d;
    }
  }
}

TEST(ScalarDivisionTest, MinusOneOverflowAndZeroAreNull) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  Batch batch(Schema({{"x", int64()}}), {Column::from(std::vector<int64_t>{5, -5, 0, kMin})});
  const Column q = evaluate(*detail::ExprAccess::node(col("x") / lit(int64_t{-1})), batch);
  const Column r = evaluate(*detail::ExprAccess::node(col("x") % lit(int64_t{-1})), batch);
  const std::vector<int64_t> want_q = {-5, 5, 0};
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(q.value<int64_t>(i), want_q[size_t(i)]);
  EXPECT_TRUE(q.is_null(3));  // INT64_MIN / -1 does not fit in int64
  EXPECT_EQ(q.null_count(), 1);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(r.value<int64_t>(i), 0);
  EXPECT_EQ(r.null_count(), 0);
  EXPECT_EQ(evaluate(*detail::ExprAccess::node(col("x") % lit(int64_t{0})), batch).null_count(), 4);
}

TEST(ScalarDivisionTest, NullRowsStayNull) {
  Batch batch(Schema({{"x", int64()}}),
              {Column::from(std::vector<std::optional<int64_t>>{9, std::nullopt, -9})});
  const Column q = evaluate(*detail::ExprAccess::node(col("x") / lit(int64_t{3})), batch);
  EXPECT_EQ(q.null_count(), 1);
  EXPECT_TRUE(q.is_null(1));
  EXPECT_EQ(q.value<int64_t>(0), 3);
  EXPECT_EQ(q.value<int64_t>(2), -3);
}

}  // namespace
}  // namespace ember
