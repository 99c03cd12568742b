// A query's first pipeline as a message: the chain another rank plans again is the same chain,
// and the shapes that cannot travel say why they stay on rank 0.
#include "dist/pipeline_message.h"

#include <gtest/gtest.h>

#include "exec/sources/range_source.h"
#include "exec/sources/table_source.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"

namespace ember::dist {
namespace {

ExprPtr tree(const Expr& e) { return detail::ExprAccess::node(e); }

NodePtr range_source(int64_t n, int parts) {
  return make_source(std::make_shared<RangeSource>(n, parts));
}

TEST(PipelineMessage, FiltersAndProjectionsTravelUpToTheFirstBreaker) {
  NodePtr chain = make_filter(range_source(100, 4), tree(col("id") % lit(int64_t{3}) == lit(0)));
  chain = make_project(chain, {tree(col("id")), tree((col("id") * lit(2.5)).alias("half")),
                               tree(lit(std::string("k")).alias("s"))});
  NodePtr root = make_limit(chain, 7);
  std::string why;
  const std::string bytes = encode_first_pipeline(*root, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  // The limit is a breaker: it stays on rank 0; everything below it travels, unchanged.
  EXPECT_EQ(to_string(*again), to_string(*chain));
  EXPECT_EQ(again->schema, chain->schema);
}

TEST(PipelineMessage, AJoinOrASourceInMemoryStaysOnRankZero) {
  std::string why;
  NodePtr joined = make_join(range_source(10, 2), range_source(5, 1), {"id"}, JoinType::Inner);
  EXPECT_TRUE(encode_first_pipeline(*joined, &why).empty());
  EXPECT_EQ(why, "it joins two inputs");
  const Schema schema({{"a", int64()}});
  Table t(schema, {Batch(schema, {Column::from(std::vector<int64_t>{1, 2})})});
  NodePtr table = make_source(std::make_shared<TableSource>(t, 2));
  EXPECT_TRUE(encode_first_pipeline(*table, &why).empty());
  EXPECT_NE(why.find("is not a CSV or JSON-lines scan or a range"), std::string::npos) << why;
}

}  // namespace
}  // namespace ember::dist
