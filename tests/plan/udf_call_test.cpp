// Udf::operator(): the call expression it builds, and the missing return type it refuses.
#include <gtest/gtest.h>

#include "ember/udf.h"
#include "expr/expr_access.h"
#include "expr/expr_node.h"
#include "udf/udf_access.h"
#include "udf/udf_spec.h"

namespace ember {
namespace {

struct Echo {
  explicit Echo(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(0); }
};

Udf stateful() { return Udf::cls<Echo>("echo"); }
Udf stateless() {
  return Udf::fn("twice", [](const Batch& in) { return in.column(0); });
}

TEST(UdfCall, CallWithoutReturnTypeIsAnError) {
  try {
    stateful()(col("x"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "udf 'echo' has no return type: call .returns(...)");
  }
}

TEST(UdfCall, CallBuildsAUdfCallNode) {
  Udf u = stateful().returns(utf8());
  Expr e = u(col("text"), col("n") + lit(int64_t{1}));
  const ExprNode& node = *detail::ExprAccess::node(e);
  EXPECT_EQ(node.kind, ExprKind::UdfCall);
  EXPECT_EQ(node.udf, detail::UdfAccess::spec(u));
  EXPECT_EQ(spec_of(node.udf), detail::UdfAccess::spec(u));
  EXPECT_EQ(node.udf->udf_name(), "echo");
  EXPECT_TRUE(node.udf->is_stateful());
  ASSERT_EQ(node.children.size(), 2u);
  EXPECT_EQ(node.children[0]->kind, ExprKind::Column);
  EXPECT_EQ(node.children[0]->name, "text");
  EXPECT_EQ(node.children[1]->kind, ExprKind::Binary);
  EXPECT_EQ(node.children[1]->binary, BinaryOp::Add);

  Expr none = stateless().returns(int64())();
  EXPECT_EQ(detail::ExprAccess::node(none)->kind, ExprKind::UdfCall);
  EXPECT_TRUE(detail::ExprAccess::node(none)->children.empty());
  EXPECT_FALSE(detail::ExprAccess::node(none)->udf->is_stateful());
}

}  // namespace
}  // namespace ember
