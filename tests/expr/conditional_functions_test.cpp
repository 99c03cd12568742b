// when, coalesce, fill_null, is_in, between, nullif: nulls, type meeting, chains, type errors.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using I = std::optional<int64_t>;
using D = std::optional<double>;
using B = std::optional<bool>;
using S = std::optional<std::string>;

Batch numbers() {
  return testfn::batch({{"i", Column::from(std::vector<I>{1, 5, std::nullopt, -3, 10})},
                        {"x", Column::from(std::vector<D>{0.5, std::nullopt, 2.5, -1.0, 9.0})},
                        {"s", Column::from(std::vector<S>{"a", "b", std::nullopt, "c", "d"})}});
}

TEST(ConditionalFunctions, WhenTakesOtherwiseWhereConditionIsNull) {
  const Column c = eval(when(col("i") > 2, col("i"), lit(int64_t{0})), numbers());
  EXPECT_EQ(values<int64_t>(c), (std::vector<I>{0, 5, 0, 0, 10}));
}

TEST(ConditionalFunctions, WhenChainsAndWidens) {
  const Expr e = when(col("i") < 0, lit("neg"), when(col("i") < 5, lit("small"), lit("big")));
  EXPECT_EQ(values<std::string>(eval(e, numbers())),
            (std::vector<S>{"small", "big", "big", "neg", "big"}));
  const Column mixed = eval(when(col("i") > 2, col("i"), col("x")), numbers());
  ASSERT_EQ(mixed.type(), float64());
  EXPECT_EQ(values<double>(mixed), (std::vector<D>{0.5, 5.0, 2.5, -1.0, 10.0}));
  const Column null_branch = eval(when(col("i") > 2, lit(Value{}), col("s")), numbers());
  EXPECT_EQ(values<std::string>(null_branch),
            (std::vector<S>{"a", std::nullopt, std::nullopt, "c", std::nullopt}));
}

TEST(ConditionalFunctions, CoalesceAndFillNull) {
  EXPECT_EQ(values<double>(eval(coalesce({col("x"), col("i"), lit(-9.0)}), numbers())),
            (std::vector<D>{0.5, 5.0, 2.5, -1.0, 9.0}));
  EXPECT_EQ(values<int64_t>(eval(col("i").fill_null(lit(int64_t{7})), numbers())),
            (std::vector<I>{1, 5, 7, -3, 10}));
  EXPECT_EQ(values<std::string>(eval(col("s").fill_null(lit("?")), numbers()))[2], S("?"));
}

TEST(ConditionalFunctions, IsInComparesNumbersByValue) {
  EXPECT_EQ(
      values<bool>(eval(col("i").is_in({Value{int64_t{5}}, Value{10.0}, Value{}}), numbers())),
      (std::vector<B>{false, true, std::nullopt, false, true}));
  EXPECT_EQ(values<bool>(eval(col("x").is_in({Value{int64_t{9}}, Value{0.5}}), numbers())),
            (std::vector<B>{true, std::nullopt, false, false, true}));
  EXPECT_EQ(values<bool>(eval(col("s").is_in({Value{"c"}, Value{"a"}}), numbers())),
            (std::vector<B>{true, false, std::nullopt, true, false}));
  EXPECT_THROW(testfn::type_of_expr(col("s").is_in({Value{int64_t{1}}}), numbers()), TypeError);
}

TEST(ConditionalFunctions, BetweenAndNullif) {
  EXPECT_EQ(values<bool>(eval(col("i").between(lit(int64_t{1}), lit(int64_t{5})), numbers())),
            (std::vector<B>{true, true, std::nullopt, false, false}));
  EXPECT_EQ(values<int64_t>(eval(col("i").nullif(lit(int64_t{5})), numbers())),
            (std::vector<I>{1, std::nullopt, std::nullopt, -3, 10}));
}

TEST(ConditionalFunctions, TypeErrors) {
  EXPECT_THROW(testfn::type_of_expr(when(col("i"), col("i"), col("i")), numbers()), TypeError);
  try {
    testfn::type_of_expr(coalesce({col("i"), col("s")}), numbers());
    FAIL();
  } catch (const TypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("coalesce()"), std::string::npos) << m;
    EXPECT_NE(m.find("int64, utf8"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace ember
