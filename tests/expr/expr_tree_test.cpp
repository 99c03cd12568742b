// Structural questions about expression trees: output names and referenced columns.
#include "expr/expr_tree.h"

#include <gtest/gtest.h>

#include "expr/expr_access.h"

namespace ember {
namespace {

TEST(ExprTreeTest, OutputNamesAndReferencedColumns) {
  EXPECT_EQ(output_name(*detail::ExprAccess::node(col("id"))), "id");
  EXPECT_EQ(output_name(*detail::ExprAccess::node((col("id") + lit(int64_t{1})).alias("next"))),
            "next");
  EXPECT_EQ(output_name(*detail::ExprAccess::node(col("id") + lit(int64_t{1}))), "(id + 1)");
  std::set<std::string> cols;
  referenced_columns(
      *detail::ExprAccess::node((col("id") * col("score")) > col("id").cast(float64())), cols);
  EXPECT_EQ(cols, (std::set<std::string>{"id", "score"}));
}

}  // namespace
}  // namespace ember
