// Expressions over int32, float32, timestamps, binary and lists: widening arithmetic and
// comparison, numeric casts, list_size and list_get, and their plan-time types.
#include <gtest/gtest.h>

#include "expr/evaluate.h"
#include "expr/expr_access.h"
#include "expr/type_check.h"

namespace ember {
namespace {

using Items = std::vector<std::optional<int64_t>>;

Batch sample() {
  Schema schema({{"i", int32()},
                 {"f", float32()},
                 {"t", timestamp_us()},
                 {"b", binary()},
                 {"xs", list(int64())}});
  return Batch(schema,
               {Column::from(std::vector<std::optional<int32_t>>{1, std::nullopt, -2147483647}),
                Column::from(std::vector<float>{0.5f, 2.0f, -1.25f}),
                Column::from(std::vector<Timestamp>{{10}, {20}, {30}}),
                Column::from(std::vector<std::vector<uint8_t>>{{1}, {2, 3}, {}}),
                Column::from(std::vector<std::optional<Items>>{Items{4, std::nullopt, 6},
                                                               std::nullopt, Items{}})});
}

Column eval(const Expr& e) {
  const Batch b = sample();
  infer_type(*detail::ExprAccess::node(e), b.schema());  // plan-time check passes
  return evaluate(*detail::ExprAccess::node(e), b);
}

DataType type_of_expr(const Expr& e) {
  return infer_type(*detail::ExprAccess::node(e), sample().schema());
}

TEST(NewerTypes, ArithmeticWidensToInt64AndFloat64) {
  EXPECT_EQ(type_of_expr(col("i") + col("i")), int64());
  EXPECT_EQ(type_of_expr(col("i") * col("f")), float64());
  EXPECT_EQ(type_of_expr(-col("f")), float64());
  const Column sum = eval(col("i") + col("i"));
  EXPECT_EQ(sum.get(2), Value(int64_t{-4294967294}));  // no int32 overflow
  EXPECT_TRUE(sum.is_null(1));
  EXPECT_EQ(eval(col("f") * lit(2.0)).get(2), Value(-2.5));
}

TEST(NewerTypes, ComparisonsCoverNumbersTimestampsAndBinary) {
  EXPECT_EQ(eval(col("f") > lit(1.0)).get(1), Value(true));
  EXPECT_EQ(eval(col("i") < lit(int64_t{0})).get(2), Value(true));
  EXPECT_EQ(eval(col("t") >= lit(Value(Timestamp{20}))).get(0), Value(false));
  EXPECT_EQ(eval(col("t") >= lit(Value(Timestamp{20}))).get(2), Value(true));
  EXPECT_EQ(eval(col("b") == lit(Value(std::vector<uint8_t>{2, 3}))).get(1), Value(true));
  EXPECT_THROW(type_of_expr(col("t") > col("i")), TypeError);
  EXPECT_THROW(type_of_expr(col("xs") + col("i")), TypeError);
}

TEST(NewerTypes, CastsBetweenTheNumericTypes) {
  const Column narrowed = eval(lit(int64_t{3000000000}).cast(int32()));
  EXPECT_TRUE(narrowed.is_null(0)) << "out of int32's range";
  EXPECT_EQ(eval(col("f").cast(int32())).get(1), Value(int64_t{2}));
  EXPECT_EQ(eval(col("i").cast(float32())).get(0), Value(1.0f));
  EXPECT_EQ(eval(col("i").cast(utf8())).get(2), Value(std::string("-2147483647")));
  EXPECT_EQ(eval(col("t").cast(int64())).get(1), Value(int64_t{20}));
  EXPECT_EQ(eval(lit(std::string("2024-03-01 00:00:00")).cast(timestamp_us())).get(0),
            Value(Timestamp{1709251200000000}));
  EXPECT_EQ(eval(col("t").cast(utf8())).get(0), Value(std::string("1970-01-01 00:00:00.000010")));
  EXPECT_THROW(type_of_expr(col("b").cast(int64())), TypeError);
}

TEST(NewerTypes, ListSizeAndListGet) {
  EXPECT_EQ(type_of_expr(col("xs").list_size()), int64());
  EXPECT_EQ(type_of_expr(col("xs").list_get(0)), int64());
  const Column sizes = eval(col("xs").list_size());
  EXPECT_EQ(sizes.get(0), Value(int64_t{3}));
  EXPECT_TRUE(sizes.is_null(1));
  EXPECT_EQ(sizes.get(2), Value(int64_t{0}));
  const Column first = eval(col("xs").list_get(0));
  EXPECT_EQ(first.get(0), Value(int64_t{4}));
  EXPECT_TRUE(first.is_null(1));
  EXPECT_TRUE(first.is_null(2)) << "an empty list has no item 0";
  EXPECT_EQ(eval(col("xs").list_get(-1)).get(0), Value(int64_t{6}));
  EXPECT_TRUE(eval(col("xs").list_get(1)).is_null(0)) << "a null item";
  EXPECT_EQ((col("xs").list_get(2)).to_string(), "xs.list_get(2)");
  EXPECT_THROW(type_of_expr(col("i").list_size()), TypeError);
}

TEST(NewerTypes, ListsCastToFixedSizeListsWhenTheyFit) {
  const Column fixed = eval(col("xs").cast(fixed_size_list(int64(), 3)));
  EXPECT_EQ(fixed.type(), fixed_size_list(int64(), 3));
  EXPECT_EQ(fixed.get(0), sample().column("xs").get(0));
  EXPECT_TRUE(fixed.is_null(2)) << "an empty list does not have 3 items";
  const Column back = evaluate(*detail::ExprAccess::node(col("x").cast(list(int64()))),
                               Batch(Schema({{"x", fixed.type()}}), {fixed}));
  EXPECT_EQ(back.type(), list(int64()));
  EXPECT_EQ(back.get(0), fixed.get(0));
}

}  // namespace
}  // namespace ember
