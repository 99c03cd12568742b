// Filter and limit pushdown on hand-built plans.
#include <gtest/gtest.h>

#include "plan/filter_pushdown.h"
#include "plan/limit_pushdown.h"
#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::lines;
using test::PlanBuilder;

Schema ab() { return Schema({{"a", int64()}, {"b", int64()}}); }

TEST(FilterPushdown, BelowAProjectionThatPassesItsColumnRenamed) {
  NodePtr plan = PlanBuilder(ab())
                     .project({col("a").alias("x"), (col("b") + lit(int64_t{1})).alias("y")})
                     .filter(col("x") > lit(int64_t{2}))
                     .build();
  NodePtr out = push_down_filters(plan);
  EXPECT_EQ(out->schema, plan->schema);
  ASSERT_NE(dynamic_cast<const ProjectNode*>(out.get()), nullptr);
  auto* f = dynamic_cast<const FilterNode*>(&out->child());
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->describe(), "Filter (a > 2)");
}

TEST(FilterPushdown, StaysAboveAComputedColumn) {
  NodePtr plan = PlanBuilder(ab())
                     .project({(col("b") + lit(int64_t{1})).alias("y")})
                     .filter(col("y") > lit(int64_t{2}))
                     .build();
  EXPECT_EQ(push_down_filters(plan).get(), plan.get());
}

TEST(FilterPushdown, BelowAPoolWhoseResultItDoesNotRead) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).pool(u, {"a"}, "r").filter(col("b") > lit(int64_t{0})).build();
  NodePtr out = push_down_filters(plan);
  ASSERT_NE(dynamic_cast<const ActorPoolProjectNode*>(out.get()), nullptr);
  EXPECT_NE(dynamic_cast<const FilterNode*>(&out->child()), nullptr);

  NodePtr reads = PlanBuilder(ab()).pool(u, {"a"}, "r").filter(col("r") > lit(int64_t{0})).build();
  EXPECT_EQ(push_down_filters(reads).get(), reads.get());
}

TEST(FilterPushdown, ThroughSeveralNodesButNotALimit) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab())
                     .limit(10)
                     .pool(u, {"a"}, "r")
                     .project({col("a"), col("r")})
                     .filter(col("a") > lit(int64_t{0}))
                     .build();
  auto l = lines(push_down_filters(plan));
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(l[2], "Filter (a > 0)");
  EXPECT_EQ(l[3], "Limit 10");
}

TEST(LimitPushdown, TwoLimitsBecomeTheSmaller) {
  NodePtr plan = PlanBuilder(ab()).limit(3).limit(7).build();
  EXPECT_EQ(lines(push_down_limits(plan)), (std::vector<std::string>{"Limit 3", "TestSource"}));
}

TEST(LimitPushdown, BelowRowPreservingNodes) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).pool(u, {"a"}, "r").project({col("r")}).limit(4).build();
  auto l = lines(push_down_limits(plan));
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[2], "Limit 4");
}

TEST(LimitPushdown, NotBelowAFilterOrAnAggregate) {
  NodePtr filtered = PlanBuilder(ab()).filter(col("a") > lit(int64_t{0})).limit(4).build();
  EXPECT_EQ(push_down_limits(filtered).get(), filtered.get());
  NodePtr agg = PlanBuilder(ab()).aggregate({col("a").sum()}).limit(1).build();
  EXPECT_EQ(push_down_limits(agg).get(), agg.get());
}

}  // namespace
}  // namespace ember
