// Stateful UDF calls move into ActorPoolProject nodes; names and schemas stay.
#include "plan/actor_pool_extraction.h"

#include <gtest/gtest.h>

#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::PlanBuilder;

Schema ab() { return Schema({{"a", int64()}, {"b", int64()}}); }

TEST(ActorPoolExtraction, CallOnAColumnBecomesAPoolBelowTheProjection) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).project({col("a"), u(col("b")).alias("r")}).build();
  NodePtr out = extract_actor_pools(plan);
  EXPECT_EQ(out->schema, plan->schema);
  auto* pool = dynamic_cast<const ActorPoolProjectNode*>(&out->child());
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->arg_columns, std::vector<std::string>{"b"});
  EXPECT_EQ(pool->output_column, "__ember_udf_0");
  EXPECT_NE(dynamic_cast<const SourceNode*>(&pool->child()), nullptr);
}

TEST(ActorPoolExtraction, ComputedArgumentsGetAProjectionBelowThePool) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).project({u(col("a") + col("b"))}).build();
  NodePtr out = extract_actor_pools(plan);
  EXPECT_EQ(out->schema, plan->schema) << "the user's column name is kept";
  auto* pool = dynamic_cast<const ActorPoolProjectNode*>(&out->child());
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->arg_columns, std::vector<std::string>{"__ember_arg_0"});
  auto* args = dynamic_cast<const ProjectNode*>(&pool->child());
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->schema.field(2).name, "__ember_arg_0");
}

TEST(ActorPoolExtraction, NestedCallsRunInnerFirst) {
  Udf inner = test::stateful_udf("inner"), outer = test::stateful_udf("outer");
  NodePtr plan = PlanBuilder(ab()).project({outer(inner(col("a"))).alias("r")}).build();
  NodePtr out = extract_actor_pools(plan);
  auto* top = dynamic_cast<const ActorPoolProjectNode*>(&out->child());
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->udf->name, "outer");
  auto* below = dynamic_cast<const ActorPoolProjectNode*>(&top->child());
  ASSERT_NE(below, nullptr);
  EXPECT_EQ(below->udf->name, "inner");
  EXPECT_EQ(top->arg_columns, std::vector<std::string>{below->output_column});
}

TEST(ActorPoolExtraction, FilterOnACallDropsThePoolColumnAgain) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).filter(u(col("a")) > lit(int64_t{0})).build();
  NodePtr out = extract_actor_pools(plan);
  EXPECT_EQ(out->schema, ab());
  ASSERT_NE(dynamic_cast<const ProjectNode*>(out.get()), nullptr);
  ASSERT_NE(dynamic_cast<const FilterNode*>(&out->child()), nullptr);
  EXPECT_NE(dynamic_cast<const ActorPoolProjectNode*>(&out->child().child()), nullptr);
}

TEST(ActorPoolExtraction, AggregateOverACall) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(ab()).aggregate({u(col("a")).sum().alias("s")}).build();
  NodePtr out = extract_actor_pools(plan);
  EXPECT_EQ(out->schema, plan->schema);
  EXPECT_NE(dynamic_cast<const AggregateNode*>(out.get()), nullptr);
  EXPECT_NE(dynamic_cast<const ActorPoolProjectNode*>(&out->child()), nullptr);
}

TEST(ActorPoolExtraction, PlanWithoutStatefulCallsIsUnchanged) {
  NodePtr plan = PlanBuilder(ab()).project({col("a") + lit(int64_t{1})}).limit(3).build();
  EXPECT_EQ(extract_actor_pools(plan).get(), plan.get());
}

}  // namespace
}  // namespace ember
