// Cluster-wide placement: decide each actor's rank against scratch ledgers of every rank, then
// admit every rank's share in its real ledger; nothing is held unless all of it is.
#include "dist/cluster_placement.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "resources/resource_units.h"

namespace ember::dist {

namespace {

/// "1 GPU", "2 CPU + 1 GiB memory": what one actor of `spec` asks for.
std::string per_actor(const UdfSpec& spec) {
  std::vector<std::string> parts;
  if (spec.num_cpus > 0) parts.push_back(format_amount(spec.num_cpus) + " CPU");
  if (spec.num_gpus > 0) parts.push_back(format_amount(spec.num_gpus) + " GPU");
  if (spec.memory_bytes > 0) parts.push_back(format_bytes(spec.memory_bytes) + " memory");
  if (parts.empty()) return "nothing";
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += " + " + parts[i];
  return out;
}

}  // namespace

ClusterPlacer::ClusterPlacer(std::vector<RankResources> ranks, RemoteActorMaker maker)
    : ranks_(std::move(ranks)), maker_(std::move(maker)) {
  if (ranks_.empty()) throw InvalidArgument("a cluster has at least one rank");
  pools_.resize(ranks_.size());
  for (size_t r = 1; r < ranks_.size(); ++r)
    pools_[r] = std::make_shared<ResourcePool>(ranks_[r].total, ranks_[r].gpu_ids);
}

RankResources ClusterPlacer::rank_resources(int r, const std::optional<Resources>& local) const {
  RankResources out = ranks_.at(static_cast<size_t>(r));
  if (r == 0) {
    auto pool = ResourcePool::for_run(local);
    out.total = pool->total();
    out.gpu_ids = pool->gpu_ids();
  }
  return out;
}

std::vector<std::vector<int>> ClusterPlacer::decide(
    const std::vector<std::shared_ptr<const UdfSpec>>& pools,
    const std::optional<Resources>& local) const {
  const int n = ranks();
  std::vector<RankResources> rr;
  for (int r = 0; r < n; ++r) rr.push_back(rank_resources(r, local));
  std::vector<std::vector<int>> counts(pools.size(), std::vector<int>(static_cast<size_t>(n), 0));
  std::vector<int> actors_on(static_cast<size_t>(n), 0);
  // Whether rank r admits the actors counted for it so far, by its own rules (device packing
  // included), on a scratch ledger.
  auto fits = [&](int r) {
    std::vector<PoolRequest> requests;
    for (size_t p = 0; p < pools.size(); ++p) {
      if (const int k = counts[p][static_cast<size_t>(r)]; k > 0) {
        PoolRequest req = pool_request(*pools[p]);
        req.actors = k;
        requests.push_back(req);
      }
    }
    try {
      const auto& me = rr[static_cast<size_t>(r)];
      ResourcePool(me.total, me.gpu_ids).admit(requests);
      return true;
    } catch (const ResourceError&) {
      return false;
    }
  };
  for (size_t p = 0; p < pools.size(); ++p) {
    for (int a = 0; a < pools[p]->concurrency; ++a) {
      std::vector<int> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        const auto ux = static_cast<size_t>(x), uy = static_cast<size_t>(y);
        if (counts[p][ux] != counts[p][uy]) return counts[p][ux] < counts[p][uy];
        return actors_on[ux] < actors_on[uy];
      });
      bool placed = false;
      for (int r : order) {
        const auto ur = static_cast<size_t>(r);
        ++counts[p][ur];
        if (fits(r)) {
          ++actors_on[ur];
          placed = true;
          break;
        }
        --counts[p][ur];
      }
      if (placed) continue;
      // What each rank has free for this pool: its total less the earlier pools' actors.
      const UdfSpec& spec = *pools[p];
      std::ostringstream msg;
      msg << "udf '" << spec.name << "' asks for " << spec.concurrency << " actor"
          << (spec.concurrency == 1 ? "" : "s") << " x " << per_actor(spec) << "; ranks have ";
      for (int r = 0; r < n; ++r) {
        const auto ur = static_cast<size_t>(r);
        double cpus = rr[ur].total.cpus, gpus = rr[ur].total.gpus;
        ByteTotal memory = rr[ur].total.memory_bytes;
        for (size_t q = 0; q < p; ++q) {
          cpus -= counts[q][ur] * pools[q]->num_cpus;
          gpus -= counts[q][ur] * pools[q]->num_gpus;
          memory -= total_bytes(counts[q][ur], pools[q]->memory_bytes);
        }
        std::vector<std::string> free;
        if (spec.num_cpus > 0) free.push_back(format_units(std::max(0.0, cpus), "CPU"));
        if (spec.num_gpus > 0) free.push_back(format_units(std::max(0.0, gpus), "GPU"));
        if (spec.memory_bytes > 0)
          free.push_back(format_bytes(std::max<ByteTotal>(0, memory)) + " memory");
        msg << (r ? ", " : "");
        for (size_t i = 0; i < free.size(); ++i) msg << (i ? " + " : "") << free[i];
        msg << " (rank " << r << ")";
      }
      msg << " free";
      throw ResourceError(msg.str());
    }
  }
  return counts;
}

Placement ClusterPlacer::place(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                               const std::optional<Resources>& local) {
  const std::vector<std::vector<int>> counts = decide(pools, local);
  const int n = ranks();
  for (size_t p = 0; p < pools.size(); ++p) {
    const bool remote =
        std::any_of(counts[p].begin() + 1, counts[p].end(), [](int k) { return k; });
    if (remote && pools[p]->class_name.empty()) {
      throw InvalidArgument("udf '" + pools[p]->name +
                            "' has actors on other ranks, which construct it by name: register "
                            "its class with EMBER_REGISTER_UDF(ClassName)");
    }
  }
  Placement placement;
  placement.ranks = n;
  auto remote_holds = std::make_shared<std::vector<ResourceLease>>();
  // grants[r][p]: rank r's grant for pool p (empty when it holds none of its actors).
  std::vector<std::vector<PoolGrant>> grants(static_cast<size_t>(n),
                                             std::vector<PoolGrant>(pools.size()));
  bool local_admitted = false;
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<size_t>(r);
    std::vector<PoolRequest> requests;
    std::vector<size_t> which;
    for (size_t p = 0; p < pools.size(); ++p) {
      if (counts[p][ur] == 0) continue;
      PoolRequest req = pool_request(*pools[p]);
      req.actors = counts[p][ur];
      requests.push_back(req);
      which.push_back(p);
    }
    if (requests.empty()) continue;
    std::shared_ptr<ResourcePool> pool = r == 0 ? ResourcePool::for_run(local) : pools_[ur];
    ResourceLease lease;
    try {
      lease = pool->admit(requests);
    } catch (const ResourceError& e) {
      throw ResourceError("rank " + std::to_string(r) + ": " + e.what());
    }
    for (size_t i = 0; i < which.size(); ++i) grants[ur][which[i]] = lease.pools().at(i);
    if (r == 0) {
      placement.local = std::move(lease);
      local_admitted = true;
    } else {
      remote_holds->push_back(std::move(lease));
    }
  }
  placement.cpus_left =
      local_admitted ? placement.local.cpus_left() : ResourcePool::for_run(local)->total().cpus;
  placement.remote = remote_holds;
  for (size_t p = 0; p < pools.size(); ++p) {
    std::vector<PlacedActor> actors;
    PoolGrant total;
    total.udf_name = pools[p]->name;
    for (int r = 0; r < n; ++r) {
      const PoolGrant& g = grants[static_cast<size_t>(r)][p];
      total.held_cpus += g.held_cpus;
      total.held_gpus += g.held_gpus;
      total.held_memory += g.held_memory;
      for (ActorContext ctx : g.actors) {
        ctx.actor_id = static_cast<int>(actors.size());
        ActorMaker make;
        if (r != 0) {
          make = [maker = maker_, spec = pools[p], ctx, r](std::stop_token doomed) {
            return maker(spec, ctx, r, std::move(doomed));
          };
        }
        total.actors.push_back(ctx);
        actors.push_back({ctx, r, std::move(make)});
      }
    }
    placement.pools.push_back(std::move(actors));
    placement.grants.push_back(std::move(total));
  }
  return placement;
}

std::string ClusterPlacer::explain(const std::vector<std::shared_ptr<const UdfSpec>>& pools,
                                   const std::optional<Resources>& local) {
  std::ostringstream out;
  out << "  " << ranks() << " ranks\n";
  for (int r = 0; r < ranks(); ++r) {
    const RankResources me = rank_resources(r, local);
    out << "    rank " << r << " (" << me.host << "): " << format_units(me.total.cpus, "CPU")
        << ", " << format_units(me.total.gpus, "GPU") << ", " << format_bytes(me.total.memory_bytes)
        << " memory" << (r == 0 ? "; runs the pipelines" : "") << "\n";
  }
  try {
    const auto counts = decide(pools, local);
    for (size_t p = 0; p < pools.size(); ++p) {
      out << "  " << pools[p]->name << ":";
      const char* separator = " ";
      for (int r = 0; r < ranks(); ++r) {
        if (const int k = counts[p][static_cast<size_t>(r)]) {
          out << separator << "rank " << r << " x" << k;
          separator = ", ";
        }
      }
      out << "\n";
    }
  } catch (const ResourceError& e) {
    out << "  cannot be placed: " << e.what() << "\n";
  }
  return out.str();
}

}  // namespace ember::dist
