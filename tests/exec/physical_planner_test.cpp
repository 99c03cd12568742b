// The physical planner on hand-built plans: where pipelines start and end, what they hold.
#include "exec/physical_planner.h"

#include <gtest/gtest.h>

#include "exec/sinks/aggregate_sink.h"
#include "exec/sinks/limit_sink.h"
#include "exec/sinks/repartition_sink.h"
#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::PlanBuilder;

Schema ab() { return Schema({{"a", int64()}, {"b", int64()}}); }

TEST(PhysicalPlanner, StreamingNodesMakeOnePipelineIntoTheOutput) {
  NodePtr plan = PlanBuilder(ab()).filter(col("a") > lit(int64_t{0})).project({col("b")}).build();
  PhysicalPlan p = plan_physical(*plan);
  ASSERT_EQ(p.pipelines.size(), 1u);
  const Pipeline& only = p.pipelines[0];
  EXPECT_NE(only.source, nullptr);
  EXPECT_EQ(only.breaker, nullptr) << "ends in the query's output";
  ASSERT_EQ(only.segments.size(), 1u);
  EXPECT_EQ(only.segments[0].size(), 2u);
  EXPECT_EQ(only.schema, Schema({{"b", int64()}}));
  EXPECT_EQ(p.schema, only.schema);
}

TEST(PhysicalPlanner, ActorPoolsCutThePipelineIntoSegments) {
  test::PlanBuilder b(ab());
  b.project({col("a")}).pool(test::stateful_udf("f"), {"a"}, "r").project({col("r")});
  b.pool(test::stateful_udf("g"), {"r"}, "s");
  PhysicalPlan p = plan_physical(*b.build());
  ASSERT_EQ(p.pipelines.size(), 1u);
  EXPECT_EQ(p.pipelines[0].stages.size(), 2u);
  ASSERT_EQ(p.pipelines[0].segments.size(), 3u);
  EXPECT_EQ(p.pipelines[0].segments[0].size(), 1u);
  EXPECT_EQ(p.pipelines[0].segments[1].size(), 1u);
  EXPECT_EQ(p.pipelines[0].segments[2].size(), 0u);
  ASSERT_EQ(p.pools.size(), 2u);
  EXPECT_EQ(p.pools[0]->name, "f");
  EXPECT_EQ(p.pools[1]->name, "g");
}

TEST(PhysicalPlanner, EachBreakerEndsAPipelineAndTheNextReadsItsOutput) {
  NodePtr plan = PlanBuilder(ab())
                     .limit(10)
                     .project({col("a")})
                     .repartition(3)
                     .aggregate({col("a").sum().alias("s")})
                     .build();
  PhysicalPlan p = plan_physical(*plan);
  ASSERT_EQ(p.pipelines.size(), 4u);
  EXPECT_NE(p.pipelines[0].source, nullptr);
  EXPECT_NE(dynamic_cast<const LimitSink*>(p.pipelines[0].breaker.get()), nullptr);
  EXPECT_EQ(p.pipelines[1].source, nullptr);
  EXPECT_EQ(p.pipelines[1].segments[0].size(), 1u) << "the projection runs after the limit";
  EXPECT_NE(dynamic_cast<const RepartitionSink*>(p.pipelines[1].breaker.get()), nullptr);
  EXPECT_NE(dynamic_cast<const AggregateSink*>(p.pipelines[2].breaker.get()), nullptr);
  EXPECT_EQ(p.pipelines[2].schema, Schema({{"a", int64()}})) << "what the aggregate reads";
  EXPECT_EQ(p.pipelines[3].breaker, nullptr);
  EXPECT_EQ(p.pipelines[3].schema, Schema({{"s", int64()}}));
}

}  // namespace
}  // namespace ember
