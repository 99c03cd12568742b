// Autoscaling pools through whole queries: they grow into free resources, never into what
// another pool of the query reserved, and explain() shows their range.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Returns its argument after 10 ms: latency-bound, so more actors finish sooner.
class Slow {
 public:
  explicit Slow(const InitArgs&) {}
  Column operator()(const Batch& in) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return in.column(0);
  }
};

RunOptions machine(double cpus) {
  RunOptions o;
  o.resources = Resources{cpus, 0, int64_t{4} << 30};
  return o;
}

}  // namespace

EMBER_REGISTER_UDF(Slow);

TEST(AutoscalingQuery, GrowsIntoFreeCpusAndReportsIt) {
  Udf slow = Udf::cls<Slow>("slow").returns(int64()).concurrency(1, 4).num_cpus(1).batch_size(10);
  QueryResult r = range(3000, 8).with_column("s", slow(col("id"))).execute(machine(8));
  ASSERT_EQ(r.table.num_rows(), 3000);
  for (int64_t i = 0; i < 3000; i += 97) EXPECT_EQ(r.table.column("s").value<int64_t>(i), i);
  const UdfStats& s = r.stats.udfs.at(0);
  EXPECT_EQ(s.actors, 1);
  EXPECT_EQ(s.peak_actors, 4);
  EXPECT_EQ(s.scale_ups, 3);
  EXPECT_EQ(s.inits, 4);
  EXPECT_EQ(s.rows, 3000);
}

TEST(AutoscalingQuery, NeverGrowsIntoWhatAnotherPoolOfTheQueryReserved) {
  Udf grows = Udf::cls<Slow>("grows").returns(int64()).concurrency(1, 4).num_cpus(1).batch_size(10);
  Udf fixed = Udf::cls<Slow>("fixed").returns(int64()).concurrency(2).num_cpus(1).batch_size(10);
  // 3 CPUs: the minimums (1 + 2) take them all, so "grows" has no room to grow.
  QueryResult r = range(600, 4)
                      .with_column("g", grows(col("id")))
                      .with_column("f", fixed(col("id")))
                      .execute(machine(3));
  ASSERT_EQ(r.table.num_rows(), 600);
  ASSERT_EQ(r.stats.udfs.size(), 2u);
  for (const UdfStats& s : r.stats.udfs) {
    if (s.name == "grows") {
      EXPECT_EQ(s.peak_actors, 1);
      EXPECT_EQ(s.scale_ups, 0);
    } else {
      EXPECT_EQ(s.actors, 2);
      EXPECT_EQ(s.peak_actors, 2);
    }
  }
}

TEST(AutoscalingQuery, ExplainShowsMinAndMax) {
  Udf slow = Udf::cls<Slow>("slow").returns(int64()).concurrency(2, 6).num_cpus(1);
  const std::string plan = range(10).with_column("s", slow(col("id"))).explain(machine(8));
  EXPECT_NE(plan.find("concurrency 2..6 (autoscaling"), std::string::npos) << plan;
  EXPECT_NE(plan.find("pools ask for: 2 CPUs"), std::string::npos) << plan;
}

TEST(AutoscalingQuery, ProcessActorsGrowAndEachAddedWorkerIsConstructedOnce) {
  Udf slow = Udf::cls<Slow>("slow")
                 .returns(int64())
                 .concurrency(1, 3)
                 .num_cpus(1)
                 .batch_size(10)
                 .isolation(Isolation::Process);
  QueryResult r = range(3000, 8).with_column("s", slow(col("id"))).execute(machine(8));
  ASSERT_EQ(r.table.num_rows(), 3000);
  for (int64_t i = 0; i < 3000; i += 89) EXPECT_EQ(r.table.column("s").value<int64_t>(i), i);
  const UdfStats& s = r.stats.udfs.at(0);
  EXPECT_EQ(s.peak_actors, 3);
  EXPECT_EQ(s.scale_ups, 2);
  EXPECT_EQ(s.inits, 3);
}
