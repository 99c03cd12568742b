// Logical nodes: schemas and checks at construction, printing, the walks over a plan.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "plan/plan_builder.h"

namespace ember {
namespace {

using test::PlanBuilder;

Schema ab() { return Schema({{"a", int64()}, {"b", float64()}}); }

TEST(LogicalNode, ProjectTypesItsColumns) {
  NodePtr p = PlanBuilder(ab()).project({col("a"), (col("b") * lit(2.0)).alias("c")}).build();
  EXPECT_EQ(p->schema, Schema({{"a", int64()}, {"c", float64()}}));
}

TEST(LogicalNode, ChecksAtConstruction) {
  EXPECT_THROW(PlanBuilder(ab()).project({col("a"), col("a")}), InvalidArgument);
  EXPECT_THROW(PlanBuilder(ab()).filter(col("a")), TypeError);
  EXPECT_THROW(PlanBuilder(ab()).limit(-1), InvalidArgument);
  EXPECT_THROW(PlanBuilder(ab()).repartition(0), InvalidArgument);
  EXPECT_THROW(PlanBuilder(ab()).project({}), InvalidArgument);
}

TEST(LogicalNode, PassThroughNodesKeepTheSchema) {
  NodePtr p = PlanBuilder(ab()).filter(col("a") > lit(int64_t{1})).limit(3).repartition(2).build();
  EXPECT_EQ(p->schema, ab());
}

TEST(LogicalNode, AggregateHasOneColumnPerAggregate) {
  NodePtr p = PlanBuilder(ab()).aggregate({col("a").sum(), col("b").max().alias("m")}).build();
  ASSERT_EQ(p->schema.num_fields(), 2);
  EXPECT_EQ(p->schema.field(1).name, "m");
}

TEST(LogicalNode, ActorPoolAppendsItsColumn) {
  NodePtr p = PlanBuilder(ab()).pool(test::stateful_udf(), {"a"}, "u").build();
  EXPECT_EQ(p->schema, Schema({{"a", int64()}, {"b", float64()}, {"u", int64()}}));
  EXPECT_EQ(p->describe(), "ActorPoolProject u = ident(a)");
}

TEST(LogicalNode, PrintsOneLinePerNodeRootFirst) {
  NodePtr p = PlanBuilder(ab()).limit(5).repartition(3).build();
  EXPECT_EQ(to_string(*p), "Repartition 3\n  Limit 5\n    TestSource\n");
}

TEST(LogicalNode, WithChildrenRebuildsOverANewInput) {
  NodePtr p = PlanBuilder(ab()).project({col("a")}).build();
  NodePtr other = PlanBuilder(Schema({{"a", utf8()}})).build();
  NodePtr rebuilt = p->with_children({other});
  EXPECT_EQ(rebuilt->schema, Schema({{"a", utf8()}}));
  EXPECT_EQ(p->over(p->children).get(), p.get()) << "same children: the node itself";
}

TEST(LogicalNode, SourceFilesEachOnce) {
  auto src = std::make_shared<test::SchemaSource>(ab(), 1, std::vector<std::string>{"x", "y", "x"});
  NodePtr p = PlanBuilder(src).limit(1).build();
  EXPECT_EQ(source_files(*p), (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace ember
