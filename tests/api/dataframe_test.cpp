// The DataFrame facade: immutable frames, plan-time checks, and the opaque plan behind a frame.
#include <gtest/gtest.h>

#include "api/dataframe_access.h"
#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<std::string> names(const Schema& s) {
  std::vector<std::string> out;
  for (const Field& f : s.fields()) out.push_back(f.name);
  return out;
}

}  // namespace

TEST(DataFrame, EveryMethodReturnsANewFrameAndLeavesItsInputAsItWas) {
  const DataFrame base = range(10, 2);
  const DataFrame wider = base.with_column("x", col("id") * lit(int64_t{2}));
  const DataFrame fewer = wider.where(col("x") > lit(int64_t{4})).limit(3);
  EXPECT_EQ(names(base.schema()), std::vector<std::string>{"id"});
  EXPECT_EQ(names(wider.schema()), (std::vector<std::string>{"id", "x"}));
  EXPECT_EQ(base.collect().num_rows(), 10);
  EXPECT_EQ(wider.collect().num_rows(), 10);
  EXPECT_EQ(fewer.collect().num_rows(), 3);
}

TEST(DataFrame, WithColumnReplacesAColumnInPlace) {
  const DataFrame df =
      range(4).with_column("y", lit(int64_t{1})).with_column("id", col("id") + col("y"));
  EXPECT_EQ(names(df.schema()), (std::vector<std::string>{"id", "y"}));
  const Table t = df.collect();
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(t.column("id").value<int64_t>(i), i + 1);
}

TEST(DataFrame, TypesAreCheckedWhenTheFrameIsBuiltNotWhenItRuns) {
  const DataFrame df = range(3);
  EXPECT_THROW(df.where(col("id")), TypeError);  // an int64 predicate
  EXPECT_THROW(df.select({col("nope")}), Error);
  EXPECT_THROW(df.select({col("id"), col("id")}), InvalidArgument);  // duplicate output names
}

TEST(DataFrame, ExplainShowsTheLogicalAndPhysicalPlan) {
  const std::string text = range(100, 4).where(col("id") > lit(int64_t{5})).limit(7).explain();
  EXPECT_NE(text.find("Filter"), std::string::npos) << text;
  EXPECT_NE(text.find("Limit 7"), std::string::npos) << text;
  EXPECT_NE(text.find("Range"), std::string::npos) << text;
}

TEST(DataFrame, ExplainListsEachPipelineAsItsStepsRun) {
  const std::string text = range(100, 4)
                               .where(col("id") > lit(int64_t{5}))
                               .group_by({"id"})
                               .agg({col("id").count().alias("n")})
                               .sort({{col("id")}})
                               .explain();
  const auto at = text.find("== Pipelines ==\n");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string pipelines = text.substr(at);
  // Three pipelines: the scan into the group-by, its output into the sort, the sorted output.
  EXPECT_NE(pipelines.find("  1. Range"), std::string::npos) << pipelines;
  EXPECT_NE(pipelines.find("-> Filter"), std::string::npos) << pipelines;
  EXPECT_NE(pipelines.find("  2. what pipeline 1 gathered -> Sort"), std::string::npos)
      << pipelines;
  EXPECT_NE(pipelines.find("  3. what pipeline 2 gathered -> output"), std::string::npos)
      << pipelines;
}

TEST(DataFrame, CopiesShareOnePlanThatTheEngineReachesThroughTheAccessor) {
  const DataFrame a = range(5).with_column("x", col("id") + lit(int64_t{1}));
  const DataFrame b = a;  // NOLINT: the copy is the point
  EXPECT_EQ(detail::DataFrameAccess::root(a).get(), detail::DataFrameAccess::root(b).get());
  const DataFrame c = detail::DataFrameAccess::make(detail::DataFrameAccess::root(a));
  EXPECT_EQ(names(c.schema()), names(a.schema()));
  EXPECT_EQ(c.collect().num_rows(), 5);
}
