// List functions and embedding similarities over list and fixed_size_list columns, checked
// against plain loops written in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ember/error.h"
#include "expr/cast_kernels.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using IL = std::optional<std::vector<std::optional<int64_t>>>;

Batch int_lists() {
  return testfn::batch({{"l", Column::from(std::vector<IL>{
                                  std::vector<std::optional<int64_t>>{3, 1, std::nullopt, 3, 2},
                                  std::vector<std::optional<int64_t>>{}, std::nullopt,
                                  std::vector<std::optional<int64_t>>{INT64_MAX, 1},
                                  std::vector<std::optional<int64_t>>{-5}})}});
}

Value ints(std::vector<Value> v) { return Value{List{std::move(v), int64()}}; }

TEST(ListFunctions, Reductions) {
  const Batch b = int_lists();
  using I = std::optional<int64_t>;
  EXPECT_EQ(values<int64_t>(eval(col("l").list_sum(), b)),
            (std::vector<I>{9, std::nullopt, std::nullopt, std::nullopt, -5}));  // overflow: null
  EXPECT_EQ(values<int64_t>(eval(col("l").list_min(), b)),
            (std::vector<I>{1, std::nullopt, std::nullopt, 1, -5}));
  EXPECT_EQ(values<int64_t>(eval(col("l").list_max(), b)),
            (std::vector<I>{3, std::nullopt, std::nullopt, INT64_MAX, -5}));
  const auto mean = values<double>(eval(col("l").list_mean(), b));
  EXPECT_DOUBLE_EQ(*mean[0], 2.25);
  EXPECT_EQ(mean[1], std::nullopt);
  using B = std::optional<bool>;
  EXPECT_EQ(values<bool>(eval(col("l").list_contains(Value{int64_t{2}}), b)),
            (std::vector<B>{true, false, std::nullopt, false, false}));
  EXPECT_EQ(values<bool>(eval(col("l").list_contains(Value{-5.0}), b))[4], B(true));
}

TEST(ListFunctions, SliceSortDistinct) {
  const Batch b = int_lists();
  const Column sliced = eval(col("l").list_slice(1, 2), b);
  EXPECT_EQ(sliced.get(0), ints({Value{int64_t{1}}, Value{}}));
  EXPECT_EQ(sliced.get(1), ints({}));
  EXPECT_TRUE(sliced.is_null(2));
  EXPECT_EQ(eval(col("l").list_slice(-1, 5), b).get(3), ints({Value{int64_t{1}}}));
  EXPECT_EQ(eval(col("l").list_slice(1, INT64_MAX), b).get(3), ints({Value{int64_t{1}}}));
  EXPECT_EQ(eval(col("l").list_slice(INT64_MIN, 1), b).get(4), ints({Value{int64_t{-5}}}));
  const Column sorted = eval(col("l").list_sort(), b);
  EXPECT_EQ(sorted.get(0), ints({Value{int64_t{1}}, Value{int64_t{2}}, Value{int64_t{3}},
                                 Value{int64_t{3}}, Value{}}));
  const Column distinct = eval(col("l").list_distinct(), b);
  EXPECT_EQ(distinct.get(0), ints({Value{int64_t{3}}, Value{int64_t{1}}, Value{int64_t{2}}}));
  EXPECT_EQ(distinct.get(3), ints({Value{INT64_MAX}, Value{int64_t{1}}}));
}

TEST(ListFunctions, JoinAndTextOrder) {
  using SL = std::optional<std::vector<std::optional<std::string>>>;
  const Batch b =
      testfn::batch({{"t", Column::from(std::vector<SL>{
                               std::vector<std::optional<std::string>>{"b", std::nullopt, "a", "é"},
                               std::vector<std::optional<std::string>>{}, std::nullopt})}});
  EXPECT_EQ(values<std::string>(eval(col("t").list_join(", "), b)),
            (std::vector<std::optional<std::string>>{"b, a, é", "", std::nullopt}));
  EXPECT_EQ(eval(col("t").list_min(), b).get(0), Value{"a"});
  EXPECT_EQ(eval(col("t").list_max(), b).get(0), Value{"é"});
}

TEST(ListFunctions, TypeErrors) {
  const Batch b = int_lists();
  EXPECT_THROW(testfn::type_of_expr(col("l").list_join(","), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("l").list_contains(Value{"x"}), b), TypeError);
  const Batch s = testfn::batch({{"s", Column::from(std::vector<std::string>{"a"})}});
  EXPECT_THROW(testfn::type_of_expr(col("s").list_sum(), s), TypeError);
}

// Reference similarity of two float vectors, in float64.
double reference(FunctionId f, const std::vector<float>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0, dd = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    ab += double(a[k]) * b[k];
    aa += double(a[k]) * a[k];
    bb += b[k] * b[k];
    dd += (a[k] - b[k]) * (a[k] - b[k]);
  }
  if (f == FunctionId::Dot) return ab;
  if (f == FunctionId::L2Distance) return std::sqrt(dd);
  return ab / std::sqrt(aa) / std::sqrt(bb);
}

TEST(EmbeddingFunctions, FixedSizeListsAgainstALiteralQuery) {
  constexpr int kDim = 37, kRows = 200;
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  std::vector<std::vector<float>> rows(kRows, std::vector<float>(kDim));
  for (auto& r : rows)
    for (float& v : r) v = g(rng);
  std::vector<double> query(kDim);
  List q{{}, float64()};
  for (double& v : query) {
    v = g(rng);
    q.items.emplace_back(std::in_place_type<double>, v);
  }
  const Column lists = Column::from(rows);
  const Batch b = testfn::batch(
      {{"emb", cast_column(lists, fixed_size_list(float32(), kDim))}, {"var", lists}});
  for (auto [f, e] :
       {std::pair{FunctionId::CosineSimilarity, cosine_similarity(col("emb"), lit(q))},
        std::pair{FunctionId::Dot, dot(lit(q), col("emb"))},
        std::pair{FunctionId::L2Distance, l2_distance(col("var"), lit(q))}}) {
    const auto got = values<double>(eval(e, b));
    for (int r = 0; r < kRows; ++r) {
      EXPECT_NEAR(*got[size_t(r)], reference(f, rows[size_t(r)], query), 1e-9) << e.to_string();
    }
  }
}

TEST(EmbeddingFunctions, NullsAndMismatchedLengths) {
  using FL = std::optional<std::vector<std::optional<double>>>;
  const Batch b = testfn::batch(
      {{"a", Column::from(std::vector<FL>{std::vector<std::optional<double>>{1, 0},
                                          std::vector<std::optional<double>>{1, 2}, std::nullopt,
                                          std::vector<std::optional<double>>{0, 0},
                                          std::vector<std::optional<double>>{1, std::nullopt}})},
       {"b", Column::from(std::vector<FL>{
                 std::vector<std::optional<double>>{0, 1}, std::vector<std::optional<double>>{1},
                 std::vector<std::optional<double>>{1, 1}, std::vector<std::optional<double>>{1, 1},
                 std::vector<std::optional<double>>{1, 1}})}});
  using D = std::optional<double>;
  EXPECT_EQ(values<double>(eval(cosine_similarity(col("a"), col("b")), b)),
            (std::vector<D>{0.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(values<double>(eval(dot(col("a"), col("b")), b))[3], D(0.0));
  EXPECT_THROW(testfn::type_of_expr(dot(col("a"), lit(int64_t{1})), b), TypeError);
}

}  // namespace
}  // namespace ember
