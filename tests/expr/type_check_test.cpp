// Expression building, rendering and plan-time typing, including every error message shape.
#include "expr/type_check.h"

#include <gtest/gtest.h>

#include "expr/expr_tree.h"
#include "fake_udf.h"

namespace ember {
namespace {

const Schema kSchema({{"id", int64()},
                      {"name", utf8()},
                      {"score", float64()},
                      {"ok", boolean()},
                      {"tags", list(utf8())}});

DataType type(const Expr& e) { return infer_type(*detail::ExprAccess::node(e), kSchema); }

template <class E>
std::string error_of(const Expr& e) {
  try {
    type(e);
  } catch (const E& err) {
    return err.what();
  }
  return "<no error>";
}

TEST(ExprTest, ToString) {
  EXPECT_EQ(((col("id") * lit(int64_t{3})) + lit(int64_t{1})).to_string(), "((id * 3) + 1)");
  EXPECT_EQ((col("name") == lit(std::string("a\"b"))).to_string(), "(name == \"a\\\"b\")");
  EXPECT_EQ((!col("ok") || lit(Value{})).to_string(), "(!ok || null)");
  EXPECT_EQ(col("id").cast(float64()).to_string(), "id.cast(float64)");
  EXPECT_EQ(col("id").is_null().to_string(), "id.is_null()");
  EXPECT_EQ((-col("score")).alias("neg").to_string(), "-score.alias(\"neg\")");
  EXPECT_EQ((col("score") / lit(1.5)).to_string(), "(score / 1.5)");
}

TEST(TypeCheckTest, ArithmeticTypes) {
  EXPECT_EQ(type(col("id") + col("id")), int64());
  EXPECT_EQ(type(col("id") / col("id")), int64());
  EXPECT_EQ(type(col("id") % lit(int64_t{2})), int64());
  EXPECT_EQ(type(col("id") * col("score")), float64());
  EXPECT_EQ(type(lit(1.0) - col("id")), float64());
  EXPECT_EQ(type(-col("id")), int64());
  EXPECT_EQ(type(-col("score")), float64());
  EXPECT_EQ(type(lit(Value{}) + col("id")), int64());
  EXPECT_EQ(type(col("score") + lit(Value{})), float64());
  EXPECT_EQ(type(lit(Value{}) + lit(Value{})), DataType());
}

TEST(TypeCheckTest, ComparisonLogicalCastAndOthers) {
  EXPECT_EQ(type(col("id") < col("score")), boolean());
  EXPECT_EQ(type(col("name") >= lit(std::string("m"))), boolean());
  EXPECT_EQ(type(col("ok") == lit(true)), boolean());
  EXPECT_EQ(type(col("name") == lit(Value{})), boolean());
  EXPECT_EQ(type(col("ok") && (col("id") > lit(int64_t{0}))), boolean());
  EXPECT_EQ(type(!col("ok") || lit(Value{})), boolean());
  for (DataType t : {boolean(), int64(), float64(), utf8()}) {
    EXPECT_EQ(type(col("name").cast(t)), t);
    EXPECT_EQ(type(col("id").cast(t)), t);
  }
  EXPECT_EQ(type(lit(Value{}).cast(utf8())), utf8());
  EXPECT_EQ(type(col("tags").is_null()), boolean());
  EXPECT_EQ(type(col("score").alias("s")), float64());
}

TEST(TypeCheckTest, TypeErrorsNameExpressionAndTypes) {
  EXPECT_EQ(error_of<TypeError>(col("name") + lit(int64_t{1})),
            "cannot apply '+' to utf8 and int64 in (name + 1)");
  EXPECT_EQ(error_of<TypeError>(col("ok") && col("id")),
            "cannot apply '&&' to bool and int64 in (ok && id)");
  EXPECT_EQ(error_of<TypeError>(col("name") < col("id")),
            "cannot apply '<' to utf8 and int64 in (name < id)");
  EXPECT_EQ(error_of<TypeError>(col("ok") == col("id")),
            "cannot apply '==' to bool and int64 in (ok == id)");
  EXPECT_EQ(error_of<TypeError>(!col("id")), "cannot apply '!' to int64 in !id");
  EXPECT_EQ(error_of<TypeError>(-col("name")), "cannot apply '-' to utf8 in -name");
  EXPECT_EQ(error_of<TypeError>(lit(Value{}) + col("name")),
            "cannot apply '+' to null and utf8 in (null + name)");
  EXPECT_NE(error_of<TypeError>(col("tags").cast(utf8())).find("cannot cast list<utf8> to utf8"),
            std::string::npos);
  EXPECT_NE(error_of<TypeError>(col("id").cast(list(int64()))).find("to list<int64>"),
            std::string::npos);
  // The error comes from the innermost bad node even when nested.
  EXPECT_EQ(error_of<TypeError>((col("name") * lit(int64_t{2})) > lit(int64_t{0})),
            "cannot apply '*' to utf8 and int64 in (name * 2)");
}

TEST(TypeCheckTest, UnknownColumnListsColumns) {
  EXPECT_EQ(error_of<InvalidArgument>(col("nme") + lit(int64_t{1})),
            "unknown column 'nme' in (nme + 1); columns are: id, name, score, ok, tags");
  // A bare column reference is not quoted back as its own context.
  EXPECT_EQ(error_of<InvalidArgument>(col("idd")),
            "unknown column 'idd'; columns are: id, name, score, ok, tags");
}

std::shared_ptr<const UdfHandle> spec(std::string name, std::optional<DataType> ret,
                                      bool stateful) {
  return std::make_shared<testref::FakeUdf>(std::move(name), std::move(ret), stateful);
}

using testref::call;

TEST(TypeCheckTest, UdfCalls) {
  Expr good = call(spec("speller", int64(), true), {col("name")});
  EXPECT_EQ(type(good), int64());
  EXPECT_EQ(output_name(*detail::ExprAccess::node(good)), "speller");
  EXPECT_TRUE(contains_stateful_udf(*detail::ExprAccess::node(good + lit(int64_t{1}))));
  EXPECT_FALSE(
      contains_stateful_udf(*detail::ExprAccess::node(call(spec("f", int64(), false), {}))));
  EXPECT_EQ(error_of<InvalidArgument>(call(spec("x", std::nullopt, false), {col("id")})),
            "udf 'x' has no return type: call .returns(...)");
  // Arguments are checked before the return type.
  EXPECT_EQ(error_of<TypeError>(call(spec("x", int64(), false), {col("name") + col("id")})),
            "cannot apply '+' to utf8 and int64 in (name + id)");
}

}  // namespace
}  // namespace ember
