// Struct fields and map lookups: field() and map_get() over nested columns with nulls at each
// level, checked against the values the test put in; planning errors name what exists.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;

Value entry(Value k, Value v) {
  Struct s;
  s.fields = {{"key", std::move(k)}, {"value", std::move(v)}};
  return Value{s};
}

Batch nested_batch() {
  const DataType m = map(utf8(), int64());
  ColumnBuilder maps(m);
  List a{
      {entry(Value{std::string("x")}, Value{int64_t{1}}), entry(Value{std::string("y")}, Value{}),
       entry(Value{std::string("x")}, Value{int64_t{9}})},
      m.element()};
  maps.append_value(Value{a});
  maps.append_null();
  maps.append_value(Value{List{{}, m.element()}});
  maps.append_value(Value{List{{entry(Value{std::string("y")}, Value{int64_t{5}})}, m.element()}});
  const Column point = Column::struct_of(
      {{"x", Column::from(std::vector<std::optional<int64_t>>{1, 2, std::nullopt, 4})},
       {"tag", Column::from(std::vector<std::string>{"a", "b", "c", "d"})}});
  // The struct itself null in row 1: its fields read null there too.
  ColumnBuilder nullable(point.type());
  for (int64_t i = 0; i < 4; ++i) {
    if (i == 1)
      nullable.append_null();
    else
      nullable.append_from(point, i);
  }
  return testfn::batch({{"m", maps.finish()}, {"p", nullable.finish()}});
}

TEST(NestedFunctions, FieldReadsTheChildWithTheStructsNulls) {
  const Batch b = nested_batch();
  using I = std::optional<int64_t>;
  EXPECT_EQ(values<int64_t>(eval(col("p").field("x"), b)),
            (std::vector<I>{1, std::nullopt, std::nullopt, 4}));
  using S = std::optional<std::string_view>;
  EXPECT_EQ(values<std::string_view>(eval(col("p").field("tag"), b)),
            (std::vector<S>{"a", std::nullopt, "c", "d"}));
  EXPECT_EQ(testfn::type_of_expr(col("p").field("tag"), b), utf8());
  EXPECT_EQ(values<int64_t>(eval(col("p").field("x") + lit(int64_t{1}), b))[3], I(5));
}

TEST(NestedFunctions, MapGetFindsTheFirstEntryWithTheKey) {
  const Batch b = nested_batch();
  using I = std::optional<int64_t>;
  EXPECT_EQ(values<int64_t>(eval(col("m").map_get(Value{std::string("x")}), b)),
            (std::vector<I>{1, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(values<int64_t>(eval(col("m").map_get(Value{std::string("y")}), b)),
            (std::vector<I>{std::nullopt, std::nullopt, std::nullopt, 5}));
  // Integer keys compare by value with a float key given.
  ColumnBuilder ints(map(int32(), utf8()));
  ints.append_value(Value{List{{entry(Value{int64_t{7}}, Value{std::string("seven")})},
                               map(int32(), utf8()).element()}});
  const Batch ib = testfn::batch({{"m", ints.finish()}});
  EXPECT_EQ(eval(col("m").map_get(Value{int64_t{7}}), ib).get(0), Value{std::string("seven")});
}

TEST(NestedFunctions, PlanningErrorsNameTheFieldsAndTypes) {
  const Batch b = nested_batch();
  try {
    testfn::type_of_expr(col("p").field("z"), b);
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("its fields: x, tag"), std::string::npos) << e.what();
  }
  EXPECT_THROW(testfn::type_of_expr(col("m").field("x"), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("p").map_get(Value{int64_t{1}}), b), TypeError);
  EXPECT_THROW(testfn::type_of_expr(col("m").map_get(Value{int64_t{1}}), b), TypeError);
}

}  // namespace
}  // namespace ember
