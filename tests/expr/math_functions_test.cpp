// Math functions against the C library, row by row, over extreme values, NaN and infinities.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using I = std::optional<int64_t>;
using D = std::optional<double>;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

Batch data() {
  return testfn::batch(
      {{"i", Column::from(std::vector<I>{0, -7, 15, kMin, kMax, std::nullopt, 1250, -1250})},
       {"x",
        Column::from(std::vector<D>{0.0, -2.5, 2.5, kNaN, kInf, std::nullopt, -kInf, 1e300})}});
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Each float function equals the C library's function at every row.
template <class F>
void expect_float_map(const Expr& e, F f) {
  const Batch b = data();
  const auto got = values<double>(eval(e, b));
  const auto in = values<double>(b.column("x"));
  ASSERT_EQ(got.size(), in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    ASSERT_EQ(got[k].has_value(), in[k].has_value()) << e.to_string() << " row " << k;
    if (in[k]) {
      EXPECT_TRUE(same(*got[k], f(*in[k]))) << e.to_string() << " row " << k << ": " << *got[k];
    }
  }
}

TEST(MathFunctions, FloatFunctionsMatchTheCLibrary) {
  expect_float_map(col("x").abs(), [](double v) { return std::fabs(v); });
  expect_float_map(col("x").floor(), [](double v) { return std::floor(v); });
  expect_float_map(col("x").ceil(), [](double v) { return std::ceil(v); });
  expect_float_map(col("x").sqrt(), [](double v) { return std::sqrt(v); });
  expect_float_map(col("x").exp(), [](double v) { return std::exp(v); });
  expect_float_map(col("x").log(), [](double v) { return std::log(v); });
  expect_float_map(col("x").log10(), [](double v) { return std::log10(v); });
  expect_float_map(col("x").round(), [](double v) { return std::round(v); });
  expect_float_map(col("x").pow(lit(2.0)), [](double v) { return std::pow(v, 2.0); });
  expect_float_map(col("x").sign(),
                   [](double v) { return std::isnan(v) ? v : double((v > 0) - (v < 0)); });
}

TEST(MathFunctions, IntegersStayIntegers) {
  const Batch b = data();
  EXPECT_EQ(values<int64_t>(eval(col("i").abs(), b)),
            (std::vector<I>{0, 7, 15, std::nullopt, kMax, std::nullopt, 1250, 1250}));
  EXPECT_EQ(values<int64_t>(eval(col("i").sign(), b)),
            (std::vector<I>{0, -1, 1, -1, 1, std::nullopt, 1, -1}));
  EXPECT_EQ(values<int64_t>(eval(col("i").floor(), b)), values<int64_t>(b.column("i")));
  EXPECT_EQ(values<int64_t>(eval(col("i").round(-2), b)),
            (std::vector<I>{0, 0, 0, kMin + 8, kMax - 7, std::nullopt, 1300, -1300}));
  const auto tens = values<int64_t>(eval(col("i").round(-1), b));
  EXPECT_EQ(tens[2], I(20));         // halves away from zero
  EXPECT_EQ(tens[4], std::nullopt);  // 9223372036854775810 does not fit
}

TEST(MathFunctions, RoundToDigits) {
  const Batch b = testfn::batch(
      {{"x", Column::from(std::vector<double>{1.2345, -1.2355, 0.5, -0.5, 12345.678})}});
  const auto got = values<double>(eval(col("x").round(2), b));
  EXPECT_DOUBLE_EQ(*got[0], 1.23);
  EXPECT_DOUBLE_EQ(*got[1], -1.24);
  EXPECT_EQ(values<double>(eval(col("x").round(), b))[2], D(1.0));
  EXPECT_EQ(values<double>(eval(col("x").round(), b))[3], D(-1.0));
  EXPECT_DOUBLE_EQ(*values<double>(eval(col("x").round(-2), b))[4], 12300.0);
}

TEST(MathFunctions, Clip) {
  const Batch b = data();
  EXPECT_EQ(values<int64_t>(eval(col("i").clip(lit(int64_t{-5}), lit(int64_t{100})), b)),
            (std::vector<I>{0, -5, 15, -5, 100, std::nullopt, 100, -5}));
  const auto x = values<double>(eval(col("x").clip(lit(-1.0), lit(int64_t{1})), b));
  EXPECT_EQ(x[1], D(-1.0));
  EXPECT_TRUE(std::isnan(*x[3]));
  EXPECT_EQ(x[4], D(1.0));
}

TEST(MathFunctions, TypeErrorsNameTheFunction) {
  const Batch b = testfn::batch({{"s", Column::from(std::vector<std::string>{"a"})}});
  try {
    testfn::type_of_expr(col("s").sqrt(), b);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("sqrt() to (utf8)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember
