// Admission through whole queries: nothing is constructed when pools do not fit.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "ember/ember.h"

using namespace ember;

namespace {

std::atomic<int> built{0}, torn{0};
std::mutex gpu_mu;
std::vector<std::vector<int>> gpu_sets;

class GpuModel {
 public:
  GpuModel(const InitArgs&, const ActorContext& ctx) {
    built++;
    std::lock_guard<std::mutex> l(gpu_mu);
    gpu_sets.push_back(ctx.gpu_ids);
  }
  ~GpuModel() { torn++; }
  Column operator()(const Batch& in) { return in.column(0); }
};

RunOptions machine(double cpus, int gpus, int64_t mem = int64_t{16} << 30) {
  RunOptions o;
  o.resources = Resources{cpus, gpus, mem};
  return o;
}

}  // namespace

TEST(Admission, TooManyGpusFailsBeforeAnyActorStarts) {
  built = 0;
  Udf embed = Udf::cls<GpuModel>("embed").returns(int64()).concurrency(3).num_gpus(1).num_cpus(0);
  try {
    range(10).with_column("e", embed(col("id"))).collect(machine(8, 2));
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("embed"), std::string::npos) << m;
    EXPECT_NE(m.find("3"), std::string::npos) << m;
    EXPECT_NE(m.find("2 GPUs"), std::string::npos) << m;
  }
  EXPECT_EQ(built.load(), 0);
}

TEST(Admission, PoolsTogetherExceedingCpus) {
  built = 0;
  Udf a = Udf::cls<GpuModel>("a").returns(int64()).concurrency(2).num_cpus(1);
  Udf b = Udf::cls<GpuModel>("b").returns(int64()).concurrency(2).num_cpus(1);
  DataFrame df = range(10).with_column("x", a(col("id"))).with_column("y", b(col("id")));
  try {
    df.collect(machine(3, 0));
    FAIL();
  } catch (const ResourceError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'a'"), std::string::npos) << m;
    EXPECT_NE(m.find("'b'"), std::string::npos) << m;
  }
  EXPECT_EQ(built.load(), 0);
}

TEST(Admission, PoolsHoldingEveryCpuStillFinish) {
  Udf a = Udf::cls<GpuModel>("a").returns(int64()).concurrency(2).num_cpus(1).batch_size(100);
  Table t = range(20000, 8).with_column("x", a(col("id"))).collect(machine(2, 0));
  EXPECT_EQ(t.num_rows(), 20000);
}

TEST(Admission, DistinctGpusPerActorAndReleaseAfterQuery) {
  {
    std::lock_guard<std::mutex> l(gpu_mu);
    gpu_sets.clear();
  }
  Udf embed = Udf::cls<GpuModel>("embed").returns(int64()).concurrency(2).num_gpus(1).num_cpus(0);
  QueryResult r = range(100, 2).with_column("e", embed(col("id"))).execute(machine(4, 2));
  EXPECT_DOUBLE_EQ(r.stats.udfs.at(0).held_gpus, 2.0);
  {
    std::lock_guard<std::mutex> l(gpu_mu);
    ASSERT_EQ(gpu_sets.size(), 2u);
    ASSERT_EQ(gpu_sets[0].size(), 1u);
    ASSERT_EQ(gpu_sets[1].size(), 1u);
    EXPECT_NE(gpu_sets[0][0], gpu_sets[1][0]);
  }
  // Released: the same query fits again.
  EXPECT_EQ(range(100, 2).with_column("e", embed(col("id"))).collect(machine(4, 2)).num_rows(),
            100);
}

TEST(Admission, FractionalGpusShareOneDevice) {
  {
    std::lock_guard<std::mutex> l(gpu_mu);
    gpu_sets.clear();
  }
  Udf embed = Udf::cls<GpuModel>("embed").returns(int64()).concurrency(2).num_gpus(0.5).num_cpus(0);
  range(10).with_column("e", embed(col("id"))).collect(machine(4, 1));
  std::lock_guard<std::mutex> l(gpu_mu);
  ASSERT_EQ(gpu_sets.size(), 2u);
  EXPECT_EQ(gpu_sets[0], gpu_sets[1]);
}

TEST(Admission, ConcurrentQueriesCompeteForOnePool) {
  // The first query holds the only GPU while it runs; the second is refused meanwhile.
  class Slow {
   public:
    explicit Slow(const InitArgs&) {}
    Column operator()(const Batch& in) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return in.column(0);
    }
  };
  Udf slow = Udf::cls<Slow>("slow").returns(int64()).num_gpus(1).num_cpus(0).batch_size(10);
  RunOptions o = machine(4, 1);
  std::thread first([&] { range(400).with_column("s", slow(col("id"))).collect(o); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  try {
    range(10).with_column("s", slow(col("id"))).collect(o);
    ADD_FAILURE() << "expected ResourceError while the first query holds the GPU";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("held by other queries"), std::string::npos) << e.what();
  }
  first.join();
  EXPECT_EQ(range(10).with_column("s", slow(col("id"))).collect(o).num_rows(), 10);
}

TEST(Admission, Int64MaxMemoryTimesTwoActorsIsAResourceErrorWithTheTrueTotal) {
  built = 0;
  Udf model = Udf::cls<GpuModel>("model").returns(int64()).concurrency(2).num_cpus(0).memory_bytes(
      std::numeric_limits<int64_t>::max());
  try {
    range(10).with_column("m", model(col("id"))).collect(machine(8, 0));
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "asks for 2 actors x 8 EiB = 16 EiB (18446744073709551614 bytes)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(built.load(), 0);
}

TEST(Admission, ExplainAddsHugeMemoryRequestsExactly) {
  Udf model = Udf::cls<GpuModel>("model").returns(int64()).concurrency(2).num_cpus(0).memory_bytes(
      std::numeric_limits<int64_t>::max());
  const std::string plan = range(10).with_column("m", model(col("id"))).explain(machine(8, 0));
  EXPECT_NE(plan.find("pools ask for: 0 CPUs, 0 GPUs, 16 EiB"), std::string::npos) << plan;
}

TEST(Admission, ADemandBeyondInt64IsNeverAdmitted) {
  built = 0;
  Udf model = Udf::cls<GpuModel>("model").returns(int64()).concurrency(2).num_cpus(1).memory_bytes(
      int64_t{1} << 62);
  RunOptions all_memory;
  all_memory.resources = Resources{2, 0, std::numeric_limits<int64_t>::max()};
  EXPECT_THROW(range(10).with_column("m", model(col("id"))).collect(all_memory), ResourceError);
  EXPECT_EQ(built.load(), 0);
  // One byte less per actor fits exactly.
  Udf fits = model.memory_bytes((int64_t{1} << 62) - 1);
  EXPECT_EQ(range(10).with_column("m", fits(col("id"))).collect(all_memory).num_rows(), 10);
}

TEST(Admission, HugeGpuRequestsAreResourceErrors) {
  built = 0;
  Udf embed = Udf::cls<GpuModel>("embed").returns(int64()).concurrency(2).num_cpus(0).num_gpus(1e9);
  try {
    range(10).with_column("e", embed(col("id"))).collect(machine(8, 2));
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("2 actors x 1000000000 GPU = 2000000000 GPUs"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(built.load(), 0);
}

TEST(Admission, MalformedResourceOverridesAreInvalidArguments) {
  Udf a = Udf::cls<GpuModel>("a").returns(int64());
  DataFrame df = range(10).with_column("x", a(col("id")));
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (const Resources& bad :
       {Resources{nan, 0, 0}, Resources{inf, 0, 0}, Resources{-2, 0, 0}, Resources{1e18, 0, 0},
        Resources{4, -1, 0}, Resources{4, std::numeric_limits<int>::max(), 0},
        Resources{4, 0, -1}}) {
    RunOptions o;
    o.resources = bad;
    EXPECT_THROW(df.collect(o), InvalidArgument)
        << bad.cpus << " " << bad.gpus << " " << bad.memory_bytes;
    EXPECT_THROW(df.explain(o), InvalidArgument);
  }
}
