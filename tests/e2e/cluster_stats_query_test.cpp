// Without mpirun a program is a cluster of one: ember::cluster() describes this machine, and a
// query's per-rank figures have one entry, rank 0, that did all the work.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Double {
  explicit Double(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(2 * in.column(0).value<int64_t>(i));
    return Column::from(std::move(out));
  }
};

TEST(ClusterOfOne, ClusterDescribesThisMachine) {
  const ClusterInfo c = cluster();
  EXPECT_EQ(c.ranks, 1);
  ASSERT_EQ(c.members.size(), 1u);
  EXPECT_EQ(c.members[0].rank, 0);
  EXPECT_FALSE(c.members[0].host.empty());
  EXPECT_GE(c.members[0].resources.cpus, 1);
  EXPECT_GT(c.members[0].resources.memory_bytes, 0);
}

TEST(ClusterOfOne, QueryStatsHaveOneRankThatDidEverything) {
  auto twice = Udf::cls<Double>("twice").returns(int64()).batch_size(100).concurrency(2);
  QueryResult r = range(1000, 4).with_column("y", twice(col("id"))).execute();
  ASSERT_EQ(r.stats.ranks.size(), 1u);
  EXPECT_EQ(r.stats.ranks[0].rank, 0);
  EXPECT_EQ(r.stats.ranks[0].partitions, 4);
  EXPECT_EQ(r.stats.ranks[0].rows, 1000);
  EXPECT_GE(r.stats.ranks[0].busy_seconds, 0);
  ASSERT_EQ(r.stats.udfs.size(), 1u);
  EXPECT_EQ(r.stats.udfs[0].actors_per_rank, std::vector<int>{2});
  EXPECT_EQ(r.stats.udfs[0].inits_per_rank, std::vector<int64_t>{2});
}

}  // namespace
