// Column pruning on hand-built plans.
#include "plan/column_pruning.h"

#include <gtest/gtest.h>

#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::PlanBuilder;

Schema abc() { return Schema({{"a", int64()}, {"b", int64()}, {"c", int64()}}); }

TEST(ColumnPruning, ProjectionComputesOnlyWhatIsRead) {
  NodePtr plan = PlanBuilder(abc())
                     .project({col("a"), (col("b") + lit(int64_t{1})).alias("x"), col("c")})
                     .project({col("a")})
                     .build();
  NodePtr out = prune_columns(plan);
  EXPECT_EQ(out->schema, plan->schema);
  EXPECT_EQ(out->child().schema, Schema({{"a", int64()}}));
}

TEST(ColumnPruning, KeepsOneColumnForTheRowCount) {
  NodePtr plan = PlanBuilder(abc())
                     .project({col("b")})
                     .aggregate({lit(int64_t{1}).count().alias("n")})
                     .build();
  NodePtr out = prune_columns(plan);
  EXPECT_EQ(out->child().schema.num_fields(), 1);
}

TEST(ColumnPruning, FilterKeepsWhatItsPredicateReads) {
  NodePtr plan = PlanBuilder(abc())
                     .project({col("a"), col("b"), (col("c") * lit(int64_t{2})).alias("d")})
                     .filter(col("b") > lit(int64_t{0}))
                     .project({col("a")})
                     .build();
  NodePtr out = prune_columns(plan);
  EXPECT_EQ(out->child().child().schema, Schema({{"a", int64()}, {"b", int64()}}));
}

TEST(ColumnPruning, PoolAlwaysRunsButCarriesLess) {
  Udf u = test::stateful_udf();
  NodePtr plan = PlanBuilder(abc())
                     .project({col("a"), col("b"), col("c")})
                     .pool(u, {"a"}, "r")
                     .project({col("b")})
                     .build();
  NodePtr out = prune_columns(plan);
  auto* pool = dynamic_cast<const ActorPoolProjectNode*>(&out->child());
  ASSERT_NE(pool, nullptr) << "the pool stays even though nothing reads its result";
  EXPECT_EQ(pool->child().schema, Schema({{"a", int64()}, {"b", int64()}}));
}

}  // namespace
}  // namespace ember
