// Admission rules of ResourcePool against explicit totals (no real GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "admission_requests.h"
#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

using testing_resources::admission_error;
using testing_resources::kGiB;
using testing_resources::request;

TEST(Admission, TooManyGpusNamesUdfRequestAndTotal) {
  ResourcePool pool(Resources{8, 2, 16 * kGiB});
  EXPECT_EQ(admission_error(pool, {request("embed", 3, 0, 1)}),
            "udf 'embed' asks for 3 actors x 1 GPU = 3 GPUs, but 2 GPUs exist (0 held by other "
            "queries); lower .concurrency() or .num_gpus()");
}

TEST(Admission, TooMuchMemoryInHumanUnitsAndBytes) {
  ResourcePool pool(Resources{8, 0, 4 * kGiB});
  std::string msg = admission_error(pool, {request("model", 2, 1, 0, 3 * kGiB)});
  EXPECT_NE(msg.find("udf 'model' asks for 2 actors x 3 GiB = 6 GiB (" + std::to_string(6 * kGiB) +
                     " bytes)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("but 4 GiB (" + std::to_string(4 * kGiB) + " bytes) exist (0 B held"),
            std::string::npos)
      << msg;
}

TEST(Admission, SeveralPoolsThatOnlyTogetherExceedCpus) {
  ResourcePool pool(Resources{4, 0, kGiB});
  EXPECT_EQ(admission_error(pool, {request("a", 2, 1), request("b", 2, 1.5)}),
            "udfs 'a' (2 actors x 1 CPU) and 'b' (2 actors x 1.5 CPU) ask for 5 CPUs together, "
            "but 4 CPUs exist (0 held by other queries); lower .concurrency() or .num_cpus()");
}

TEST(Admission, ThreePoolsAreListedWithCommas) {
  ResourcePool pool(Resources{4, 0, kGiB});
  std::string msg =
      admission_error(pool, {request("a", 1, 2), request("b", 1, 2), request("c", 1, 1)});
  EXPECT_NE(msg.find("udfs 'a' (1 actor x 2 CPU), 'b' (1 actor x 2 CPU) and 'c' (1 actor x 1 "
                     "CPU) ask for 5 CPUs together"),
            std::string::npos)
      << msg;
}

TEST(Admission, APoolThatAloneExceedsIsNamedAlone) {
  ResourcePool pool(Resources{4, 0, kGiB});
  std::string msg = admission_error(pool, {request("small", 1, 1), request("big", 8, 1)});
  EXPECT_EQ(msg.rfind("udf 'big' asks for 8 actors x 1 CPU = 8 CPUs", 0), 0u) << msg;
  EXPECT_EQ(msg.find("small"), std::string::npos) << msg;
}

TEST(Admission, ZeroRequestsAlwaysFit) {
  ResourcePool pool(Resources{0, 0, 0});
  ResourceLease lease = pool.admit({request("free", 3, 0)});
  ASSERT_EQ(lease.pools().size(), 1u);
  EXPECT_EQ(lease.pools()[0].actors.size(), 3u);
  EXPECT_EQ(lease.cpus_left(), 0);
}

TEST(Admission, ContextsCarryActorIdsAndShares) {
  ResourcePool pool(Resources{8, 0, 8 * kGiB});
  ResourceLease lease = pool.admit({request("m", 3, 1.5, 0, kGiB)});
  const PoolGrant& g = lease.pools().at(0);
  EXPECT_EQ(g.udf_name, "m");
  EXPECT_DOUBLE_EQ(g.held_cpus, 4.5);
  EXPECT_EQ(g.held_memory, 3 * kGiB);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(g.actors[a].actor_id, a);
    EXPECT_DOUBLE_EQ(g.actors[a].num_cpus, 1.5);
    EXPECT_EQ(g.actors[a].memory_bytes, kGiB);
    EXPECT_TRUE(g.actors[a].gpu_ids.empty());
  }
  EXPECT_DOUBLE_EQ(lease.cpus_left(), 8 - 4.5);
}

TEST(Admission, WholeGpusAreDistinctAcrossActorsAndPools) {
  ResourcePool pool(Resources{16, 6, kGiB});
  ResourceLease lease = pool.admit({request("two", 2, 0, 2), request("one", 2, 0, 1)});
  std::multiset<int> seen;
  for (const PoolGrant& g : lease.pools())
    for (const ActorContext& a : g.actors) {
      EXPECT_EQ(a.gpu_ids.size(), g.udf_name == "two" ? 2u : 1u);
      seen.insert(a.gpu_ids.begin(), a.gpu_ids.end());
    }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), 6u);
  EXPECT_FALSE(admission_error(pool, {request("more", 1, 0, 0.1)}).empty());
}

TEST(Admission, ListedDeviceIdsAreHandedOut) {
  ResourcePool pool(Resources{4, 2, kGiB}, {0, 2});
  ResourceLease lease = pool.admit({request("g", 2, 0, 1)});
  std::set<int> ids;
  for (const ActorContext& a : lease.pools()[0].actors) ids.insert(a.gpu_ids.at(0));
  EXPECT_EQ(ids, (std::set<int>{0, 2}));
}

TEST(Admission, HalfGpusShareOneDevice) {
  ResourcePool pool(Resources{4, 2, kGiB});
  ResourceLease lease = pool.admit({request("half", 2, 0, 0.5)});
  const auto& actors = lease.pools()[0].actors;
  ASSERT_EQ(actors[0].gpu_ids.size(), 1u);
  EXPECT_EQ(actors[0].gpu_ids, actors[1].gpu_ids);
  // The other device stays wholly free.
  ResourceLease whole = pool.admit({request("whole", 1, 0, 1)});
  EXPECT_NE(whole.pools()[0].actors[0].gpu_ids, actors[0].gpu_ids);
}

TEST(Admission, FractionsGoToTheDeviceWithTheLeastShareThatFits) {
  ResourcePool pool(Resources{4, 2, kGiB});
  ResourceLease big = pool.admit({request("big", 1, 0, 0.7)});
  const int busy = big.pools()[0].actors[0].gpu_ids.at(0);
  // 0.3 is free on `busy` and 1.0 on the other: 0.25 fits best on `busy`.
  ResourceLease small = pool.admit({request("small", 1, 0, 0.25)});
  EXPECT_EQ(small.pools()[0].actors[0].gpu_ids.at(0), busy);
  // 0.05 is left on `busy`: 0.5 must go to the other device.
  ResourceLease mid = pool.admit({request("mid", 1, 0, 0.5)});
  EXPECT_NE(mid.pools()[0].actors[0].gpu_ids.at(0), busy);
}

TEST(Admission, FragmentedGpuSharesAreReported) {
  ResourcePool pool(Resources{4, 2, kGiB});
  // 3 x 0.6 = 1.8 GPUs fit in the sum, but no device holds two 0.6 shares.
  std::string msg = admission_error(pool, {request("frag", 3, 0, 0.6)});
  EXPECT_NE(msg.find("no device has 0.6 GPU free"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'frag'"), std::string::npos) << msg;
  // Nothing stays held after the failure: both devices are still wholly free.
  EXPECT_NO_THROW(pool.admit({request("whole", 2, 0, 1)}));
}

TEST(Admission, WholeGpuBlockedByAnotherQuerysFraction) {
  ResourcePool pool(Resources{4, 2, kGiB});
  ResourceLease frac = pool.admit({request("frac", 1, 0, 0.5)});
  std::string msg = admission_error(pool, {request("whole", 1, 0, 2)});
  EXPECT_NE(msg.find("'whole'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0.5 held by other queries"), std::string::npos) << msg;
  EXPECT_NO_THROW(pool.admit({request("one", 1, 0, 1)}));
}

TEST(Admission, WholeGpusNeedWhollyFreeDevices) {
  ResourcePool pool(Resources{4, 5, kGiB});
  // Three 0.6 shares occupy three devices: 3.2 GPUs are free in sum, but only 2 devices whole.
  ResourceLease others = pool.admit({request("others", 3, 0, 0.6)});
  std::string msg = admission_error(pool, {request("wide", 1, 0, 3)});
  EXPECT_NE(msg.find("udf 'wide' asks for 1 actor x 3 GPU = 3 GPUs, but no 3 devices are wholly "
                     "free for actor #0"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("1.8 held by other queries"), std::string::npos) << msg;
  EXPECT_NO_THROW(pool.admit({request("narrow", 1, 0, 2)}));
}

TEST(Admission, FailureHoldsNothing) {
  ResourcePool pool(Resources{4, 1, 4 * kGiB});
  // CPUs and memory fit, GPUs do not: all-or-nothing.
  EXPECT_THROW(pool.admit({request("cpu", 4, 1, 0, 4 * kGiB), request("gpu", 2, 0, 1)}),
               ResourceError);
  ResourceLease lease = pool.admit({request("all", 4, 1, 1.0 / 4, kGiB)});
  EXPECT_EQ(lease.cpus_left(), 0);
}

TEST(Admission, LeaseReleasesOnDestruction) {
  ResourcePool pool(Resources{4, 1, kGiB});
  {
    ResourceLease lease = pool.admit({request("a", 4, 1, 0.25)});
    EXPECT_THROW(pool.admit({request("b", 1, 1)}), ResourceError);
    EXPECT_THROW(pool.admit({request("c", 1, 0, 0.1)}), ResourceError);
  }
  EXPECT_NO_THROW(pool.admit({request("b", 4, 1, 0.25)}));
}

TEST(Admission, ReleaseIsIdempotentAndMovesTransferTheHold) {
  ResourcePool pool(Resources{4, 0, kGiB});
  ResourceLease a = pool.admit({request("a", 3, 1)});
  ResourceLease moved = std::move(a);
  a.release();  // the moved-from lease holds nothing
  EXPECT_THROW(pool.admit({request("b", 2, 1)}), ResourceError);
  moved.release();
  moved.release();
  EXPECT_FALSE(moved.held());
  ResourceLease b = pool.admit({request("b", 4, 1)});
  ResourceLease c;
  c = std::move(b);
  EXPECT_THROW(pool.admit({request("d", 1, 1)}), ResourceError);
  c = ResourceLease();  // assigning releases the old hold
  EXPECT_NO_THROW(pool.admit({request("d", 4, 1)}));
}

TEST(Admission, SecondLeaseSeesTheFirstsHold) {
  ResourcePool pool(Resources{4, 0, kGiB});
  ResourceLease first = pool.admit({request("first", 3, 1)});
  EXPECT_DOUBLE_EQ(first.cpus_left(), 1);
  EXPECT_EQ(admission_error(pool, {request("second", 2, 1)}),
            "udf 'second' asks for 2 actors x 1 CPU = 2 CPUs, but 4 CPUs exist (3 held by other "
            "queries, 1 free); lower .concurrency() or .num_cpus()");
  ResourceLease second = pool.admit({request("second", 1, 1)});
  EXPECT_DOUBLE_EQ(second.cpus_left(), 0);
  first.release();
  EXPECT_NO_THROW(pool.admit({request("third", 3, 1)}));
}

TEST(Admission, MalformedRequestsAreInvalidArguments) {
  ResourcePool pool(Resources{4, 2, kGiB});
  EXPECT_THROW(pool.admit({request("x", 0, 1)}), InvalidArgument);
  EXPECT_THROW(pool.admit({request("x", 1, -1)}), InvalidArgument);
  EXPECT_THROW(pool.admit({request("x", 1, 0, 1.5)}), InvalidArgument);
  EXPECT_THROW(pool.admit({request("x", 1, 0, 0, -5)}), InvalidArgument);
  EXPECT_THROW(pool.admit({request("x", 1, std::nan(""))}), InvalidArgument);
  EXPECT_THROW(ResourcePool(Resources{1, 2, 0}, {0}), InvalidArgument);
}

TEST(Admission, DescribeShowsTotalsAndHolds) {
  auto memory = static_cast<int64_t>(std::llround(23.4 * static_cast<double>(kGiB)));
  ResourcePool pool(Resources{2, 0, memory});
  EXPECT_EQ(pool.describe(),
            "resources: 2 CPUs, 23.4 GiB memory, 0 GPUs; held by running queries: 0 CPUs, 0 B, "
            "0 GPUs");
  ResourceLease lease = pool.admit({request("a", 1, 1.5, 0, 512 * (int64_t{1} << 20))});
  EXPECT_EQ(pool.describe(),
            "resources: 2 CPUs, 23.4 GiB memory, 0 GPUs; held by running queries: 1.5 CPUs, 512 "
            "MiB, 0 GPUs");
}

TEST(Admission, ForRunSharesOnePoolPerOverride) {
  Resources r{3, 0, kGiB};
  auto a = ResourcePool::for_run(r);
  auto b = ResourcePool::for_run(r);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, ResourcePool::for_run(Resources{5, 0, kGiB}));
  EXPECT_EQ(ResourcePool::for_run(std::nullopt), ResourcePool::for_run(std::nullopt));
  // Two queries with the same override compete.
  ResourceLease first = a->admit({request("q1", 2, 1)});
  EXPECT_THROW(b->admit({request("q2", 2, 1)}), ResourceError);
}

}  // namespace
}  // namespace ember
