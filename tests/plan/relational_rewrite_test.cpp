// The optimizer's rewrites around relational nodes, on hand-built plans.
#include <gtest/gtest.h>

#include "plan/column_pruning.h"
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
