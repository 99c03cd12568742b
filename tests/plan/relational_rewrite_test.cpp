// The optimizer's rewrites around relational nodes, on hand-built plans.
#include <gtest/gtest.h>

#include "plan/column_pruning.h"
#include "plan/join_pushdown.h"
#include "plan/limit_pushdown.h"
#include "plan/optimizer.h"
#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::lines;
using test::PlanBuilder;

Schema abc() { return Schema({{"a", int64()}, {"b", utf8()}, {"c", float64()}}); }

ExprPtr node(const Expr& e) { return detail::ExprAccess::node(e); }

TEST(TopKRewrite, SortThenLimitBecomesTopK) {
  NodePtr sorted = make_sort(PlanBuilder(abc()).build(), {{node(col("a")), true, false}});
  NodePtr plan = make_limit(sorted, 10);
  EXPECT_EQ(lines(push_down_limits(plan)),
            (std::vector<std::string>{"TopK 10 by a DESC", "TestSource"}));
  // A second limit only tightens it.
  EXPECT_EQ(lines(push_down_limits(make_limit(plan, 3))),
            (std::vector<std::string>{"TopK 3 by a DESC", "TestSource"}));
}

TEST(TopKRewrite, LimitBelowSortIsNotMoved) {
  NodePtr plan = make_sort(make_limit(PlanBuilder(abc()).build(), 5), {{node(col("a"))}});
  EXPECT_EQ(lines(push_down_limits(plan)),
            (std::vector<std::string>{"Sort a", "Limit 5", "TestSource"}));
}

TEST(ColumnPruning, BelowAGroupByOnlyKeysAndAggregateInputsAreRead) {
  NodePtr wide =
      PlanBuilder(abc())
          .project({col("a"), col("b"), col("c"), (col("a") * lit(int64_t{2})).alias("d")})
          .build();
  NodePtr plan = make_group_by(wide, {node(col("b"))}, {node(col("a").sum())});
  NodePtr out = prune_columns(plan);
  EXPECT_EQ(lines(out),
            (std::vector<std::string>{"GroupBy [b] a.sum() AS a", "Project a, b", "TestSource"}));
}

TEST(ColumnPruning, BelowASortTheKeysStay) {
  NodePtr wide = PlanBuilder(abc()).project({col("a"), col("b"), col("c")}).build();
  NodePtr plan = make_project(make_sort(wide, {{node(col("c"))}}), {node(col("a"))});
  EXPECT_EQ(lines(prune_columns(plan)),
            (std::vector<std::string>{"Project a", "Sort c", "Project a, c", "TestSource"}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

Schema fact() { return Schema({{"k", int64()}, {"text", utf8()}, {"x", int64()}}); }
Schema dim() { return Schema({{"k", int64()}, {"label", utf8()}, {"x", int64()}}); }

NodePtr join(NodePtr l, NodePtr r, JoinType t) { return make_join(l, r, {"k"}, t); }

TEST(JoinFilterPushdown, EachConjunctGoesToTheSideItReads) {
  NodePtr j = join(PlanBuilder(fact()).build(), PlanBuilder(dim()).build(), JoinType::Inner);
  NodePtr plan =
      make_filter(j, node(col("x") > lit(int64_t{1}) && col("x_right") < lit(int64_t{5}) &&
                          col("k") == lit(int64_t{3}) && col("x") != col("x_right")));
  EXPECT_EQ(to_string(*optimize(plan)),
            "Filter (x != x_right)\n"
            "  HashJoin inner on [k] (right side builds)\n"
            "    Filter ((x > 1) && (k == 3))\n"
            "      TestSource\n"
            "    Filter ((x < 5) && (k == 3))\n"
            "      TestSource\n");
}

TEST(JoinFilterPushdown, OuterSidesKeepTheirFilterAbove) {
  NodePtr left = join(PlanBuilder(fact()).build(), PlanBuilder(dim()).build(), JoinType::Left);
  NodePtr plan = make_filter(left, node(col("label") == lit("a") && col("x") > lit(int64_t{0})));
  EXPECT_EQ(to_string(*push_filters_into_joins(plan)),
            "Filter (label == \"a\")\n"
            "  HashJoin left on [k] (right side builds)\n"
            "    Filter (x > 0)\n"
            "      TestSource\n"
            "    TestSource\n");
  NodePtr full = join(PlanBuilder(fact()).build(), PlanBuilder(dim()).build(), JoinType::Full);
  NodePtr kept = make_filter(full, node(col("x") > lit(int64_t{0})));
  EXPECT_EQ(push_filters_into_joins(kept).get(), kept.get());
}

TEST(JoinColumnPruning, EachSideSuppliesOnlyWhatIsRead) {
  NodePtr j =
      join(PlanBuilder(fact()).project({col("k"), col("text"), col("x")}).build(),
           PlanBuilder(dim()).project({col("k"), col("label"), col("x")}).build(), JoinType::Inner);
  NodePtr plan = make_project(j, {node(col("text")), node(col("x_right"))});
  EXPECT_EQ(to_string(*prune_columns(plan)),
            "Project text, x_right\n"
            "  HashJoin inner on [k] (right side builds)\n"
            "    Project k, text\n"
            "      TestSource\n"
            "    Project k, x\n"
            "      TestSource\n");
}

TEST(JoinColumnPruning, ASideThatIsASourceIsNarrowedByAProjection) {
  NodePtr j = join(PlanBuilder(fact()).build(), PlanBuilder(dim()).build(), JoinType::Inner);
  NodePtr plan = make_project(j, {node(col("label"))});
  EXPECT_EQ(to_string(*prune_columns(plan)),
            "Project label\n"
            "  HashJoin inner on [k] (right side builds)\n"
            "    Project k\n"
            "      TestSource\n"
            "    Project k, label\n"
            "      TestSource\n");
}

TEST(PoolPlacement, APoolRunsAfterASemiJoinThatDropsRows) {
  Udf u = test::stateful_udf("embed");
  NodePtr scored = PlanBuilder(fact()).pool(u, {"x"}, "score").build();
  NodePtr plan = join(scored, PlanBuilder(dim()).build(), JoinType::Semi);
  EXPECT_EQ(to_string(*place_pools_after_joins(plan)),
            "ActorPoolProject score = embed(x)\n"
            "  HashJoin semi on [k] (right side builds)\n"
            "    TestSource\n"
            "    TestSource\n");
}

TEST(PoolPlacement, AnInnerOrRightJoinStaysAboveThePoolWithASemiJoinBelowIt) {
  Udf u = test::stateful_udf("embed");
  NodePtr scored = PlanBuilder(fact()).pool(u, {"x"}, "score").build();
  // An inner join may repeat a left row (one per match): it stays above the pool, and a semi
  // join below the pool keeps the UDF off the rows that will find no match.
  for (JoinType type : {JoinType::Inner, JoinType::Right}) {
    NodePtr plan = join(scored, PlanBuilder(dim()).build(), type);
    const std::string name = type == JoinType::Inner ? "inner" : "right";
    EXPECT_EQ(to_string(*place_pools_after_joins(plan)),
              "HashJoin " + name +
                  " on [k] (right side builds)\n"
                  "  ActorPoolProject score = embed(x)\n"
                  "    HashJoin semi on [k] (right side builds)\n"
                  "      TestSource\n"
                  "      TestSource\n"
                  "  TestSource\n");
  }
  // A left or full join keeps every left row: nothing to gain.
  for (JoinType type : {JoinType::Left, JoinType::Full}) {
    NodePtr plan = join(scored, PlanBuilder(dim()).build(), type);
    EXPECT_EQ(place_pools_after_joins(plan).get(), plan.get());
  }
  // A right side with a pool of its own would run it twice: left as it is.
  NodePtr dim_scored = PlanBuilder(dim()).pool(test::stateful_udf("tag"), {"k"}, "tag").build();
  NodePtr both = join(scored, dim_scored, JoinType::Inner);
  EXPECT_EQ(place_pools_after_joins(both).get(), both.get());
}

}  // namespace
}  // namespace ember
