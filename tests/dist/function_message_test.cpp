// Expressions of the function library travel to other ranks with every constant argument, and
// decode to the same tree.
#include <gtest/gtest.h>

#include "dist/pipeline_message.h"
#include "exec/sources/range_source.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"

namespace ember::dist {
namespace {

ExprPtr tree(const Expr& e) { return detail::ExprAccess::node(e); }

TEST(FunctionMessage, LibraryCallsRoundTrip) {
  NodePtr chain = make_source(std::make_shared<RangeSource>(100, 2));
  const Expr s = col("id").cast(utf8());
  chain = make_filter(chain, tree(col("id").hash() % 10 < 8 && s.str_match("^[0-9]+$") &&
                                  col("id").is_in({Value{int64_t{3}}, Value{2.5}, Value{}}) &&
                                  !s.is_in({Value{"x"}, Value{"y"}})));
  chain = make_project(
      chain,
      {tree(when(col("id") > 5, s.str_pad(4, "0"), s.str_replace_regex("(.)", "<\\1>")).alias("w")),
       tree(coalesce({col("id").cast(float64()).sqrt().round(2), lit(1.0)}).alias("r")),
       tree(s.str_split("1").list_join("-").alias("j")),
       tree(lit_timestamp("2024-01-01").dt_truncate("month").dt_year().alias("y")),
       tree((lit_date("2024-02-29") + col("id")).dt_day().alias("dd")),
       tree(concat({s, lit("é")}).str_slice(1, 3).str_upper().alias("c"))});
  NodePtr root = make_limit(chain, 7);
  std::string why;
  const std::string bytes = encode_first_pipeline(*root, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*root));  // the limit travels too
  EXPECT_EQ(again->schema, chain->schema);
}

}  // namespace
}  // namespace ember::dist
