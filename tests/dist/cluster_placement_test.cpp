// Cluster-wide placement without mpirun: ranks described by hand, "remote" actors made by a
// stand-in maker, so placement, admission and the messages they give are tested on their own.
#include "dist/cluster_placement.h"

#include <gtest/gtest.h>

#include <atomic>

#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember::dist {
namespace {

struct Echo {
  explicit Echo(const InitArgs&) {}
  Column operator()(const Batch& in) const { return in.column(0); }
};
EMBER_REGISTER_UDF(Echo);

std::shared_ptr<const UdfSpec> spec(Udf u) { return detail::UdfAccess::spec(u); }

Udf echo(int actors) { return Udf::cls<Echo>("echo").returns(int64()).concurrency(actors); }

RankResources rank(int r, double cpus, int gpus, int64_t memory = int64_t{1} << 30) {
  RankResources out{r, "host" + std::to_string(r), Resources{cpus, gpus, memory}, {}};
  for (int i = 0; i < gpus; ++i) out.gpu_ids.push_back(i);
  return out;
}

/// Counts makes per rank; makes a local thread actor in place of a remote one.
struct Maker {
  std::shared_ptr<std::atomic<int>> made = std::make_shared<std::atomic<int>>(0);
  RemoteActorMaker fn() {
    return [made = made](std::shared_ptr<const UdfSpec> s, ActorContext ctx, int, std::stop_token) {
      ++*made;
      return make_thread_actor(std::move(s), std::move(ctx));
    };
  }
};

// Rank 0 is overridden with RunOptions::resources-like values in each test (its own pool).
const std::optional<Resources> kRank0 = Resources{2, 0, int64_t{1} << 30};

TEST(ClusterPlacement, SpreadsAPoolOverTheRanks) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 0), rank(2, 2, 0)}, m.fn());
  const auto counts = placer.decide({spec(echo(6))}, kRank0);
  EXPECT_EQ(counts[0], (std::vector<int>{2, 2, 2}));
  const auto five = placer.decide({spec(echo(5).num_cpus(1))}, kRank0);
  EXPECT_EQ(five[0], (std::vector<int>{2, 2, 1}));
}

TEST(ClusterPlacement, GpuActorsGoOnlyWhereDevicesAre) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 2), rank(2, 2, 0)}, m.fn());
  const auto counts =
      placer.decide({spec(echo(2).num_gpus(1)), spec(echo(3).num_cpus(0.5))}, kRank0);
  EXPECT_EQ(counts[0], (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(counts[1], (std::vector<int>{1, 1, 1}));
  // Fractions pack per device: four half-GPU actors fit the two devices of rank 1.
  EXPECT_EQ(placer.decide({spec(echo(4).num_gpus(0.5))}, kRank0)[0], (std::vector<int>{0, 4, 0}));
}

TEST(ClusterPlacement, AdmissionErrorNamesWhatEachRankHasFree) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 2), rank(2, 2, 0)}, m.fn());
  try {
    placer.place({spec(echo(4).num_gpus(1))}, kRank0);
    FAIL() << "expected a ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_STREQ(e.what(),
                 "udf 'echo' asks for 4 actors x 1 GPU; ranks have 0 GPUs (rank 0), 2 GPUs "
                 "(rank 1), 0 GPUs (rank 2) free");
  }
  EXPECT_EQ(*m.made, 0);  // nothing made, so nothing constructed anywhere
  // Nothing is held either: a query that fits is admitted in full afterwards.
  Placement p = placer.place({spec(echo(2).num_gpus(1))}, kRank0);
  EXPECT_EQ(p.pools[0].size(), 2u);
}

TEST(ClusterPlacement, PlacementGivesGlobalIdsRanksAndMakers) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 2), rank(2, 2, 0)}, m.fn());
  Placement p = placer.place({spec(echo(3).num_cpus(1)), spec(echo(2).num_gpus(1))}, kRank0);
  ASSERT_EQ(p.pools.size(), 2u);
  std::vector<int> ranks, ids;
  for (const PlacedActor& a : p.pools[0]) {
    ranks.push_back(a.rank);
    ids.push_back(a.ctx.actor_id);
    EXPECT_EQ(a.maker == nullptr, a.rank == 0);
  }
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.grants[0].held_cpus, 3);
  // GPU actors get distinct devices on their rank.
  ASSERT_EQ(p.pools[1].size(), 2u);
  EXPECT_EQ(p.pools[1][0].ctx.gpu_ids, std::vector<int>{0});
  EXPECT_EQ(p.pools[1][1].ctx.gpu_ids, std::vector<int>{1});
  EXPECT_EQ(p.grants[1].held_gpus, 2);
  // While held, the same again does not fit on rank 1's devices.
  EXPECT_THROW(placer.place({spec(echo(1).num_gpus(1))}, kRank0), ResourceError);
  p = Placement();  // released
  EXPECT_NO_THROW(placer.place({spec(echo(1).num_gpus(1))}, kRank0));
}

TEST(ClusterPlacement, RemoteActorsNeedARegisteredClass) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 0)}, m.fn());
  struct Unregistered {
    explicit Unregistered(const InitArgs&) {}
    Column operator()(const Batch& in) const { return in.column(0); }
  };
  auto u = spec(Udf::cls<Unregistered>("loose").returns(int64()).concurrency(2));
  EXPECT_THROW(placer.place({u}, kRank0), InvalidArgument);
  // One actor stays on rank 0, where no name is needed.
  auto one = spec(Udf::cls<Unregistered>("loose").returns(int64()).concurrency(1));
  EXPECT_NO_THROW(placer.place({one}, kRank0));
}

TEST(ClusterPlacement, ExplainShowsRanksAndWhereEachPoolGoes) {
  Maker m;
  ClusterPlacer placer({rank(0, 2, 0), rank(1, 2, 2), rank(2, 2, 0)}, m.fn());
  const std::string text = placer.explain({spec(echo(2).num_gpus(1))}, kRank0);
  EXPECT_NE(text.find("rank 1 (host1): 2 CPUs, 2 GPUs"), std::string::npos) << text;
  EXPECT_NE(text.find("echo: rank 1 x2"), std::string::npos) << text;
  const std::string too_big = placer.explain({spec(echo(3).num_gpus(1))}, kRank0);
  EXPECT_NE(too_big.find("cannot be placed: udf 'echo' asks for 3 actors"), std::string::npos)
      << too_big;
}

}  // namespace
}  // namespace ember::dist
